// Cluster bus wire codec: byte layout of every message, validation as the peers do it, framing.
#include "cluster/bus_codec.h"

#include <cstring>
#include <limits>

namespace cluster {

namespace {

// Header field offsets (Valkey 8's clusterMsg).
constexpr size_t kOffSig = 0;
constexpr size_t kOffTotlen = 4;
constexpr size_t kOffVer = 8;
constexpr size_t kOffPort = 10;
constexpr size_t kOffType = 12;
constexpr size_t kOffCount = 14;
constexpr size_t kOffCurrentEpoch = 16;
constexpr size_t kOffConfigEpoch = 24;
constexpr size_t kOffOffset = 32;
constexpr size_t kOffSender = 40;
constexpr size_t kOffMySlots = 80;
constexpr size_t kOffReplicaOf = 2128;
constexpr size_t kOffMyIp = 2168;
constexpr size_t kOffExtensions = 2214;
constexpr size_t kOffPport = 2246;
constexpr size_t kOffCport = 2248;
constexpr size_t kOffFlags = 2250;
constexpr size_t kOffState = 2252;
constexpr size_t kOffMflags = 2253;
static_assert(kOffMflags + 3 == kHeaderLen);
static_assert(kOffMySlots + kSlotBitmapLen == kOffReplicaOf);
static_assert(kOffMyIp + kIpLen == kOffExtensions);

// Gossip entry offsets.
constexpr size_t kGossipOffPingSent = 40;
constexpr size_t kGossipOffPongReceived = 44;
constexpr size_t kGossipOffIp = 48;
constexpr size_t kGossipOffPort = 94;
constexpr size_t kGossipOffCport = 96;
constexpr size_t kGossipOffFlags = 98;
constexpr size_t kGossipOffPport = 100;
constexpr size_t kGossipOffReserved = 102;
static_assert(kGossipOffReserved + 2 == kGossipLen);

constexpr char kSignature[4] = {'R', 'C', 'm', 'b'};
constexpr size_t kForgottenNodePayloadLen = kNodeNameLen + 8;
constexpr size_t kShardIdPayloadLen = kNodeNameLen;

uint16_t Get16(const uint8_t* p) { return static_cast<uint16_t>(p[0] << 8 | p[1]); }
uint32_t Get32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) << 24 | static_cast<uint32_t>(p[1]) << 16 |
         static_cast<uint32_t>(p[2]) << 8 | static_cast<uint32_t>(p[3]);
}
uint64_t Get64(const uint8_t* p) {
  return static_cast<uint64_t>(Get32(p)) << 32 | static_cast<uint64_t>(Get32(p + 4));
}
void Put16(uint8_t* p, uint16_t v) {
  p[0] = static_cast<uint8_t>(v >> 8);
  p[1] = static_cast<uint8_t>(v);
}
void Put32(uint8_t* p, uint32_t v) {
  for (int i = 0; i < 4; i++) p[i] = static_cast<uint8_t>(v >> (24 - 8 * i));
}
void Put64(uint8_t* p, uint64_t v) {
  Put32(p, static_cast<uint32_t>(v >> 32));
  Put32(p + 4, static_cast<uint32_t>(v));
}
template <size_t N>
void GetArray(const uint8_t* p, std::array<char, N>* out) {
  memcpy(out->data(), p, N);
}
template <size_t N>
void GetArray(const uint8_t* p, std::array<uint8_t, N>* out) {
  memcpy(out->data(), p, N);
}
template <typename T, size_t N>
void PutArray(uint8_t* p, const std::array<T, N>& a) {
  static_assert(sizeof(T) == 1);
  memcpy(p, a.data(), N);
}

constexpr size_t RoundUp8(size_t n) { return (n + 7) & ~static_cast<size_t>(7); }

// Wire length of one extension (header included), or 0 if it cannot be encoded.
size_t PingExtLen(const PingExt& ext) {
  size_t len;
  if (IsTextExt(ext.type)) {
    if (ext.text.find('\0') != std::string::npos) return 0;
    len = kPingExtHeaderLen + RoundUp8(ext.text.size() + 1);
  } else if (ext.type == kExtForgottenNode) {
    len = kPingExtHeaderLen + RoundUp8(kForgottenNodePayloadLen);
  } else if (ext.type == kExtShardId) {
    len = kPingExtHeaderLen + RoundUp8(kShardIdPayloadLen);
  } else {
    len = kPingExtHeaderLen + RoundUp8(ext.raw.size());
  }
  return len > kMaxPingExtLen ? 0 : len;
}

// Where the bytes of the next message stand, with the limits of `max_len`.
struct Probe {
  enum Kind { kNeedMore, kComplete, kError } kind;
  DecodeStatus error;
  size_t totlen;  // 0 until 14 bytes are buffered
};

Probe ProbeStart(const uint8_t* data, size_t len, uint32_t max_len) {
  size_t sig_bytes = len < sizeof(kSignature) ? len : sizeof(kSignature);
  if (sig_bytes > 0 && memcmp(data + kOffSig, kSignature, sig_bytes) != 0) {
    return {Probe::kError, DecodeStatus::kBadSignature, 0};
  }
  if (len < kFrameProbeLen) return {Probe::kNeedMore, DecodeStatus::kTruncated, 0};
  uint32_t totlen = Get32(data + kOffTotlen);
  bool light = Get16(data + kOffType) & kTypeLightBit;
  if (totlen < (light ? kLightHeaderLen : kHeaderLen)) {
    return {Probe::kError, DecodeStatus::kBadLength, totlen};
  }
  if (totlen > max_len) return {Probe::kError, DecodeStatus::kTooLarge, totlen};
  if (len < totlen) return {Probe::kNeedMore, DecodeStatus::kTruncated, totlen};
  return {Probe::kComplete, DecodeStatus::kOk, totlen};
}

void DecodeFullHeader(const uint8_t* p, Header* h) {
  h->port = Get16(p + kOffPort);
  h->count = Get16(p + kOffCount);
  h->current_epoch = Get64(p + kOffCurrentEpoch);
  h->config_epoch = Get64(p + kOffConfigEpoch);
  h->offset = Get64(p + kOffOffset);
  GetArray(p + kOffSender, &h->sender);
  GetArray(p + kOffMySlots, &h->myslots);
  GetArray(p + kOffReplicaOf, &h->replicaof);
  GetArray(p + kOffMyIp, &h->myip);
  h->extensions = Get16(p + kOffExtensions);
  h->pport = Get16(p + kOffPport);
  h->cport = Get16(p + kOffCport);
  h->flags = Get16(p + kOffFlags);
  h->state = p[kOffState];
  GetArray(p + kOffMflags, &h->mflags);
}

void DecodeGossip(const uint8_t* p, GossipEntry* g) {
  GetArray(p, &g->name);
  g->ping_sent = Get32(p + kGossipOffPingSent);
  g->pong_received = Get32(p + kGossipOffPongReceived);
  GetArray(p + kGossipOffIp, &g->ip);
  g->port = Get16(p + kGossipOffPort);
  g->cport = Get16(p + kGossipOffCport);
  g->flags = Get16(p + kGossipOffFlags);
  g->pport = Get16(p + kGossipOffPport);
  g->reserved = Get16(p + kGossipOffReserved);
}

// PING/PONG/MEET body: gossip[count] then, with EXT_DATA, `extensions` extensions, filling
// exactly totlen bytes. `p` is the message start; totlen >= kHeaderLen.
DecodeStatus DecodePing(const uint8_t* p, size_t totlen, Message* msg) {
  const Header& h = msg->header;
  size_t pos = kHeaderLen + kGossipLen * h.count;
  if (pos > totlen) return DecodeStatus::kLengthMismatch;
  std::vector<PingExt> exts;
  if (h.mflags[0] & kMsgFlagExtData) {
    for (uint16_t i = 0; i < h.extensions; i++) {
      size_t remaining = totlen - pos;
      if (remaining < kPingExtHeaderLen) return DecodeStatus::kBadExtension;
      uint32_t ext_len = Get32(p + pos);
      if (ext_len < kPingExtHeaderLen || ext_len % 8 != 0 || ext_len > kMaxPingExtLen ||
          ext_len > remaining) {
        return DecodeStatus::kBadExtension;
      }
      PingExt ext;
      ext.type = Get16(p + pos + 4);
      const uint8_t* payload = p + pos + kPingExtHeaderLen;
      size_t payload_len = ext_len - kPingExtHeaderLen;
      if (IsTextExt(ext.type)) {
        const void* nul = memchr(payload, 0, payload_len);
        size_t n = nul ? static_cast<const uint8_t*>(nul) - payload : payload_len;
        ext.text.assign(reinterpret_cast<const char*>(payload), n);
      } else if (ext.type == kExtForgottenNode) {
        if (payload_len < kForgottenNodePayloadLen) return DecodeStatus::kBadExtension;
        GetArray(payload, &ext.name);
        ext.ttl = Get64(payload + kNodeNameLen);
      } else if (ext.type == kExtShardId) {
        if (payload_len < kShardIdPayloadLen) return DecodeStatus::kBadExtension;
        GetArray(payload, &ext.name);
      } else {
        ext.raw.assign(reinterpret_cast<const char*>(payload), payload_len);
      }
      exts.push_back(std::move(ext));
      pos += ext_len;
    }
  }
  if (pos != totlen) return DecodeStatus::kLengthMismatch;
  msg->ping.gossip.resize(h.count);
  for (size_t i = 0; i < h.count; i++) {
    DecodeGossip(p + kHeaderLen + kGossipLen * i, &msg->ping.gossip[i]);
  }
  msg->ping.extensions = std::move(exts);
  return DecodeStatus::kOk;
}

DecodeStatus DecodePublish(const uint8_t* p, size_t base, size_t totlen, PublishBody* body) {
  if (totlen < base + kPublishFixedLen) return DecodeStatus::kLengthMismatch;
  uint64_t channel_len = Get32(p + base);
  uint64_t message_len = Get32(p + base + 4);
  if (base + kPublishFixedLen + channel_len + message_len != totlen) {
    return DecodeStatus::kLengthMismatch;
  }
  const char* bulk = reinterpret_cast<const char*>(p + base + kPublishFixedLen);
  body->channel.assign(bulk, channel_len);
  body->message.assign(bulk + channel_len, message_len);
  return DecodeStatus::kOk;
}

DecodeStatus DecodeModule(const uint8_t* p, size_t totlen, ModuleBody* body) {
  if (totlen < kHeaderLen + kModuleFixedLen) return DecodeStatus::kLengthMismatch;
  const uint8_t* b = p + kHeaderLen;
  uint64_t len = Get32(b + 8);
  if (kHeaderLen + kModuleFixedLen + len != totlen) return DecodeStatus::kLengthMismatch;
  GetArray(b, &body->module_id);
  body->type = b[12];
  body->payload.assign(reinterpret_cast<const char*>(b + kModuleFixedLen), len);
  return DecodeStatus::kOk;
}

void EncodeFullHeader(const Header& h, uint16_t count, uint16_t extensions,
                      const std::array<uint8_t, 3>& mflags, uint8_t* p) {
  Put16(p + kOffPort, h.port);
  Put16(p + kOffCount, count);
  Put64(p + kOffCurrentEpoch, h.current_epoch);
  Put64(p + kOffConfigEpoch, h.config_epoch);
  Put64(p + kOffOffset, h.offset);
  PutArray(p + kOffSender, h.sender);
  PutArray(p + kOffMySlots, h.myslots);
  PutArray(p + kOffReplicaOf, h.replicaof);
  PutArray(p + kOffMyIp, h.myip);
  Put16(p + kOffExtensions, extensions);
  Put16(p + kOffPport, h.pport);
  Put16(p + kOffCport, h.cport);
  Put16(p + kOffFlags, h.flags);
  p[kOffState] = h.state;
  PutArray(p + kOffMflags, mflags);
}

void EncodeGossip(const GossipEntry& g, uint8_t* p) {
  PutArray(p, g.name);
  Put32(p + kGossipOffPingSent, g.ping_sent);
  Put32(p + kGossipOffPongReceived, g.pong_received);
  PutArray(p + kGossipOffIp, g.ip);
  Put16(p + kGossipOffPort, g.port);
  Put16(p + kGossipOffCport, g.cport);
  Put16(p + kGossipOffFlags, g.flags);
  Put16(p + kGossipOffPport, g.pport);
  Put16(p + kGossipOffReserved, g.reserved);
}

// Writes one extension of `len` bytes (from PingExtLen) at p; the buffer is already zeroed.
void EncodePingExt(const PingExt& ext, size_t len, uint8_t* p) {
  Put32(p, static_cast<uint32_t>(len));
  Put16(p + 4, ext.type);
  uint8_t* payload = p + kPingExtHeaderLen;
  if (IsTextExt(ext.type)) {
    memcpy(payload, ext.text.data(), ext.text.size());
  } else if (ext.type == kExtForgottenNode) {
    PutArray(payload, ext.name);
    Put64(payload + kNodeNameLen, ext.ttl);
  } else if (ext.type == kExtShardId) {
    PutArray(payload, ext.name);
  } else {
    memcpy(payload, ext.raw.data(), ext.raw.size());
  }
}

}  // namespace

const char* MessageTypeName(uint16_t type) {
  static const char* const kNames[kTypeCount] = {"ping",    "pong",     "meet",        "fail",
                                                 "publish", "auth-req", "auth-ack",    "update",
                                                 "mfstart", "module",   "publishshard"};
  return type < kTypeCount ? kNames[type] : "unknown";
}

std::string FormatNodeFlags(uint16_t flags) {
  std::string out;
  for (const NodeFlagName& f : kNodeFlagNames) {
    if (!(flags & f.flag)) continue;
    if (!out.empty()) out.push_back(',');
    out += f.name;
  }
  return out.empty() ? "noflags" : out;
}

bool NodeNameIsValid(const NodeName& name) {
  for (char c : name) {
    if (!((c >= 'a' && c <= 'f') || (c >= '0' && c <= '9'))) return false;
  }
  return true;
}

bool NodeNameIsNull(const NodeName& name) {
  for (char c : name) {
    if (c != 0) return false;
  }
  return true;
}

bool NodeNameFromString(std::string_view s, NodeName* out) {
  if (s.size() != kNodeNameLen) return false;
  memcpy(out->data(), s.data(), kNodeNameLen);
  return true;
}

std::string NodeNameToString(const NodeName& name) { return std::string(name.data(), name.size()); }

std::string IpToString(const IpField& ip) {
  const void* nul = memchr(ip.data(), 0, ip.size());
  size_t n = nul ? static_cast<const char*>(nul) - ip.data() : ip.size();
  return std::string(ip.data(), n);
}

bool IpFromString(std::string_view s, IpField* out) {
  if (s.size() >= kIpLen || s.find('\0') != std::string_view::npos) return false;
  out->fill(0);
  memcpy(out->data(), s.data(), s.size());
  return true;
}

int SlotCount(const SlotBitmap& b) {
  int n = 0;
  for (uint8_t byte : b) n += __builtin_popcount(byte);
  return n;
}

std::vector<uint8_t> Encode(const Message& msg) {
  const Header& h = msg.header;
  if (h.type >= kTypeCount) return {};
  if (h.light && !IsPublishType(h.type)) return {};

  size_t base = h.light ? kLightHeaderLen : kHeaderLen;
  uint64_t totlen = base;
  std::vector<size_t> ext_lens;
  std::array<uint8_t, 3> mflags = h.mflags;
  uint16_t count = 0;
  uint16_t extensions = 0;
  switch (h.type) {
    case kTypePing:
    case kTypePong:
    case kTypeMeet: {
      const PingBody& b = msg.ping;
      if (b.gossip.size() > 0xffff || b.extensions.size() > 0xffff) return {};
      count = static_cast<uint16_t>(b.gossip.size());
      extensions = static_cast<uint16_t>(b.extensions.size());
      totlen += kGossipLen * b.gossip.size();
      for (const PingExt& ext : b.extensions) {
        size_t len = PingExtLen(ext);
        if (len == 0) return {};
        ext_lens.push_back(len);
        totlen += len;
      }
      // Extensions are validated (and so may be sent) only with EXT_DATA set.
      if (!b.extensions.empty()) mflags[0] |= kMsgFlagExtData;
      break;
    }
    case kTypeFail:
      totlen += kNodeNameLen;
      break;
    case kTypePublish:
    case kTypePublishShard:
      totlen += kPublishFixedLen + msg.publish.channel.size() + msg.publish.message.size();
      break;
    case kTypeUpdate:
      totlen += kUpdateBodyLen;
      break;
    case kTypeModule:
      totlen += kModuleFixedLen + msg.module.payload.size();
      break;
    default:  // AUTH_REQUEST, AUTH_ACK, MFSTART: header only
      break;
  }
  if (totlen > std::numeric_limits<uint32_t>::max()) return {};

  std::vector<uint8_t> out(totlen, 0);
  uint8_t* p = out.data();
  memcpy(p + kOffSig, kSignature, sizeof(kSignature));
  Put32(p + kOffTotlen, static_cast<uint32_t>(totlen));
  Put16(p + kOffVer, h.ver);
  Put16(p + kOffType, static_cast<uint16_t>(h.type | (h.light ? kTypeLightBit : 0)));
  if (!h.light) EncodeFullHeader(h, count, extensions, mflags, p);

  uint8_t* body = p + base;
  switch (h.type) {
    case kTypePing:
    case kTypePong:
    case kTypeMeet: {
      for (const GossipEntry& g : msg.ping.gossip) {
        EncodeGossip(g, body);
        body += kGossipLen;
      }
      for (size_t i = 0; i < msg.ping.extensions.size(); i++) {
        EncodePingExt(msg.ping.extensions[i], ext_lens[i], body);
        body += ext_lens[i];
      }
      break;
    }
    case kTypeFail:
      PutArray(body, msg.fail.name);
      break;
    case kTypePublish:
    case kTypePublishShard: {
      const PublishBody& b = msg.publish;
      Put32(body, static_cast<uint32_t>(b.channel.size()));
      Put32(body + 4, static_cast<uint32_t>(b.message.size()));
      memcpy(body + kPublishFixedLen, b.channel.data(), b.channel.size());
      memcpy(body + kPublishFixedLen + b.channel.size(), b.message.data(), b.message.size());
      break;
    }
    case kTypeUpdate:
      Put64(body, msg.update.config_epoch);
      PutArray(body + 8, msg.update.name);
      PutArray(body + 8 + kNodeNameLen, msg.update.slots);
      break;
    case kTypeModule:
      PutArray(body, msg.module.module_id);
      Put32(body + 8, static_cast<uint32_t>(msg.module.payload.size()));
      body[12] = msg.module.type;
      memcpy(body + kModuleFixedLen, msg.module.payload.data(), msg.module.payload.size());
      break;
    default:
      break;
  }
  return out;
}

Disposition DispositionOf(DecodeStatus status) {
  switch (status) {
    case DecodeStatus::kOk:
      return Disposition::kAccept;
    case DecodeStatus::kUnknownType:
      return Disposition::kIgnore;
    case DecodeStatus::kLightNotAllowed:
    case DecodeStatus::kBadVersion:
    case DecodeStatus::kLengthMismatch:
    case DecodeStatus::kBadExtension:
    case DecodeStatus::kBadNodeName:
      return Disposition::kDrop;
    case DecodeStatus::kBadSignature:
    case DecodeStatus::kBadLength:
    case DecodeStatus::kTooLarge:
    case DecodeStatus::kTruncated:
      return Disposition::kClose;
  }
  return Disposition::kClose;
}

const char* DecodeStatusName(DecodeStatus status) {
  switch (status) {
    case DecodeStatus::kOk:
      return "ok";
    case DecodeStatus::kUnknownType:
      return "unknown type";
    case DecodeStatus::kLightNotAllowed:
      return "light header not allowed for this type";
    case DecodeStatus::kBadVersion:
      return "bad protocol version";
    case DecodeStatus::kLengthMismatch:
      return "length mismatch";
    case DecodeStatus::kBadExtension:
      return "bad ping extension";
    case DecodeStatus::kBadNodeName:
      return "bad node name";
    case DecodeStatus::kBadSignature:
      return "bad signature";
    case DecodeStatus::kBadLength:
      return "total length below the minimum";
    case DecodeStatus::kTooLarge:
      return "total length above the limit";
    case DecodeStatus::kTruncated:
      return "truncated";
  }
  return "?";
}

DecodeStatus Decode(const uint8_t* data, size_t len, Message* msg) {
  *msg = Message{};
  Probe probe = ProbeStart(data, len, std::numeric_limits<uint32_t>::max());
  if (probe.kind != Probe::kComplete) return probe.error;
  const size_t totlen = probe.totlen;

  Header& h = msg->header;
  uint16_t raw_type = Get16(data + kOffType);
  h.totlen = static_cast<uint32_t>(totlen);
  h.ver = Get16(data + kOffVer);
  h.type = raw_type & static_cast<uint16_t>(~kTypeLightBit);
  h.light = raw_type & kTypeLightBit;
  // Valkey rejects this before anything else, even before counting the packet.
  if (h.light && !IsPublishType(h.type)) return DecodeStatus::kLightNotAllowed;
  if (!h.light) DecodeFullHeader(data, &h);
  if (h.ver != kProtocolVersion) return DecodeStatus::kBadVersion;
  if (!h.light && (!NodeNameIsValid(h.sender) ||
                   !(NodeNameIsNull(h.replicaof) || NodeNameIsValid(h.replicaof))))
    return DecodeStatus::kBadNodeName;

  switch (h.type) {
    case kTypePing:
    case kTypePong:
    case kTypeMeet:
      return DecodePing(data, totlen, msg);
    case kTypeFail:
      if (totlen != kFailLen) return DecodeStatus::kLengthMismatch;
      GetArray(data + kHeaderLen, &msg->fail.name);
      return NodeNameIsValid(msg->fail.name) ? DecodeStatus::kOk : DecodeStatus::kBadNodeName;
    case kTypePublish:
    case kTypePublishShard:
      return DecodePublish(data, h.light ? kLightHeaderLen : kHeaderLen, totlen, &msg->publish);
    case kTypeFailoverAuthRequest:
    case kTypeFailoverAuthAck:
    case kTypeMfStart:
      return totlen == kHeaderLen ? DecodeStatus::kOk : DecodeStatus::kLengthMismatch;
    case kTypeUpdate: {
      if (totlen != kUpdateLen) return DecodeStatus::kLengthMismatch;
      const uint8_t* b = data + kHeaderLen;
      msg->update.config_epoch = Get64(b);
      GetArray(b + 8, &msg->update.name);
      GetArray(b + 8 + kNodeNameLen, &msg->update.slots);
      return NodeNameIsValid(msg->update.name) ? DecodeStatus::kOk : DecodeStatus::kBadNodeName;
    }
    case kTypeModule:
      return DecodeModule(data, totlen, &msg->module);
    default:
      return DecodeStatus::kUnknownType;
  }
}

Frame FrameNext(const uint8_t* data, size_t len, uint32_t max_len) {
  Probe probe = ProbeStart(data, len, max_len);
  switch (probe.kind) {
    case Probe::kNeedMore:
      return {FrameState::kNeedMore, probe.totlen, DecodeStatus::kOk};
    case Probe::kComplete:
      return {FrameState::kComplete, probe.totlen, DecodeStatus::kOk};
    case Probe::kError:
      break;
  }
  return {FrameState::kFatal, probe.totlen, probe.error};
}

}  // namespace cluster
