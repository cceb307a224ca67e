// Cluster bus wire codec: message types, byte-exact encoding, validating decoding, framing.
//
// Pure functions only (no sockets, clock or globals), so tables of cases can test them. The
// format is the one Valkey 8 and Redis 7.0 speak (Valkey 8's clusterMsg): a 2256-byte
// big-endian header, a type-specific body, and for PING/PONG/MEET gossip entries followed by
// 8-byte-aligned ping extensions. PUBLISH and PUBLISHSHARD may also use Valkey's 16-byte light
// header.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace cluster {

// ---- Sizes ----

inline constexpr size_t kNodeNameLen = 40;  // node IDs and shard IDs
inline constexpr size_t kIpLen = 46;        // NUL-padded IP text fields
inline constexpr int kSlots = 16384;
inline constexpr size_t kSlotBitmapLen = kSlots / 8;
inline constexpr size_t kHeaderLen = 2256;      // full header; minimum totlen of a full message
inline constexpr size_t kLightHeaderLen = 16;   // light header; minimum totlen of a light message
inline constexpr size_t kFrameProbeLen = 14;    // bytes needed to see sig, totlen and type
inline constexpr size_t kGossipLen = 104;       // one gossip entry
inline constexpr size_t kPingExtHeaderLen = 8;  // length u32, type u16, 2 zero bytes
inline constexpr size_t kFailLen = kHeaderLen + kNodeNameLen;                // 2296
inline constexpr size_t kUpdateBodyLen = 8 + kNodeNameLen + kSlotBitmapLen;  // 2096
inline constexpr size_t kUpdateLen = kHeaderLen + kUpdateBodyLen;            // 4352
inline constexpr size_t kPublishFixedLen = 8;  // channel_len u32 + message_len u32
inline constexpr size_t kModuleFixedLen = 13;  // module_id (8) + len u32 + type u8
inline constexpr uint16_t kProtocolVersion = 1;
// Both servers read extension lengths into 16 bits: an extension must stay below 64 KiB.
inline constexpr size_t kMaxPingExtLen = 65535;
// Our own limit for the framing helper (the peers have none), above the largest PUBLISH that two
// 512 MiB strings (proto-max-bulk-len) make.
inline constexpr uint32_t kDefaultMaxMessageLen = 0x40100000;  // 1 GiB + 1 MiB

// ---- Message types (header `type`, bit 15 = light modifier) ----

inline constexpr uint16_t kTypePing = 0;
inline constexpr uint16_t kTypePong = 1;
inline constexpr uint16_t kTypeMeet = 2;
inline constexpr uint16_t kTypeFail = 3;
inline constexpr uint16_t kTypePublish = 4;
inline constexpr uint16_t kTypeFailoverAuthRequest = 5;
inline constexpr uint16_t kTypeFailoverAuthAck = 6;
inline constexpr uint16_t kTypeUpdate = 7;
inline constexpr uint16_t kTypeMfStart = 8;
inline constexpr uint16_t kTypeModule = 9;
inline constexpr uint16_t kTypePublishShard = 10;
inline constexpr uint16_t kTypeCount = 11;  // types >= this are unknown
inline constexpr uint16_t kTypeLightBit = 0x8000;

// INFO / CLUSTER INFO name of a known type ("ping", ..., "publishshard"); "unknown" otherwise.
const char* MessageTypeName(uint16_t type);
inline bool IsPingType(uint16_t type) {
  return type == kTypePing || type == kTypePong || type == kTypeMeet;
}
inline bool IsPublishType(uint16_t type) {
  return type == kTypePublish || type == kTypePublishShard;
}

// ---- Node flags (header `flags`, gossip `flags`) ----

inline constexpr uint16_t kNodePrimary = 0x0001;       // NODES word "master"
inline constexpr uint16_t kNodeReplica = 0x0002;       // "slave"
inline constexpr uint16_t kNodePfail = 0x0004;         // "fail?"
inline constexpr uint16_t kNodeFail = 0x0008;          // "fail"
inline constexpr uint16_t kNodeMyself = 0x0010;        // "myself"
inline constexpr uint16_t kNodeHandshake = 0x0020;     // "handshake"
inline constexpr uint16_t kNodeNoAddr = 0x0040;        // "noaddr"
inline constexpr uint16_t kNodeMeet = 0x0080;          // internal: connect with MEET
inline constexpr uint16_t kNodeMigrateTo = 0x0100;     // internal: replica-migration target
inline constexpr uint16_t kNodeNoFailover = 0x0200;    // "nofailover"
inline constexpr uint16_t kNodeExtSupported = 0x0400;  // Valkey-internal, seen in gossip
inline constexpr uint16_t kNodeLightHdr = 0x0800;      // Valkey 8 sets it in its own header
// Bits Redis 7.0 knows (0-9).
inline constexpr uint16_t kNodeFlagsKnownTo70 = 0x03ff;

struct NodeFlagName {
  uint16_t flag;
  const char* name;
};
// The CLUSTER NODES flag words, in the order they are printed.
inline constexpr NodeFlagName kNodeFlagNames[] = {
    {kNodeMyself, "myself"}, {kNodePrimary, "master"},
    {kNodeReplica, "slave"}, {kNodePfail, "fail?"},
    {kNodeFail, "fail"},     {kNodeHandshake, "handshake"},
    {kNodeNoAddr, "noaddr"}, {kNodeNoFailover, "nofailover"},
};
// Comma list of the NODES words of `flags`, or "noflags" when none applies.
std::string FormatNodeFlags(uint16_t flags);

// ---- mflags[0] ----

inline constexpr uint8_t kMsgFlagPaused = 0x01;    // primary paused for a manual failover
inline constexpr uint8_t kMsgFlagForceAck = 0x02;  // AUTH_REQUEST of a manual failover
inline constexpr uint8_t kMsgFlagExtData = 0x04;   // sender understands ping extensions

// ---- Node names: 40 bytes; all zero in `replicaof` means "I am a primary" ----

using NodeName = std::array<char, kNodeNameLen>;
// Valid as a node ID on the wire: 40 chars of [0-9a-f], the only IDs Valkey and Redis make
// (they accept [a-z0-9]; a name outside hex comes only from a broken or hostile peer).
bool NodeNameIsValid(const NodeName& name);
bool NodeNameIsNull(const NodeName& name);  // all 40 bytes zero
// Copies a 40-char string; false (and `out` untouched) if the length is not 40.
bool NodeNameFromString(std::string_view s, NodeName* out);
std::string NodeNameToString(const NodeName& name);  // the 40 bytes as they are

// ---- NUL-padded IP text (header `myip`, gossip `ip`) ----

using IpField = std::array<char, kIpLen>;
// The text up to the first NUL (all 46 bytes if there is none).
std::string IpToString(const IpField& ip);
// Zero-fills `out` and copies `s`; false if `s` has a NUL or leaves no room for one (> 45).
bool IpFromString(std::string_view s, IpField* out);

// ---- Slot bitmap: slot s is byte s/8, bit s%8 (LSB first) ----

using SlotBitmap = std::array<uint8_t, kSlotBitmapLen>;
inline bool SlotTest(const SlotBitmap& b, int slot) { return (b[slot >> 3] >> (slot & 7)) & 1; }
inline void SlotSet(SlotBitmap* b, int slot) {
  (*b)[slot >> 3] = static_cast<uint8_t>((*b)[slot >> 3] | (1u << (slot & 7)));
}
inline void SlotClear(SlotBitmap* b, int slot) {
  (*b)[slot >> 3] = static_cast<uint8_t>((*b)[slot >> 3] & ~(1u << (slot & 7)));
}
int SlotCount(const SlotBitmap& b);

// ---- Client ports: (`port`, `pport`) of a header or gossip entry -> (tcp, tls) ----

struct ClientPorts {
  uint16_t tcp = 0;
  uint16_t tls = 0;
};
// The receiver maps with its own `tls-cluster`: TLS bus -> port is TLS; plaintext -> port is TCP.
inline ClientPorts ClientPortsFromWire(uint16_t port, uint16_t pport, bool tls_cluster) {
  return tls_cluster ? ClientPorts{pport, port} : ClientPorts{port, pport};
}

// ---- Messages ----

struct Header {
  uint32_t totlen = 0;  // decoded: from the wire; Encode computes it
  uint16_t ver = kProtocolVersion;
  uint16_t type = kTypePing;  // without the light bit
  bool light = false;         // 16-byte light header (PUBLISH / PUBLISHSHARD only)
  // Everything below is absent from a light header (left zero by Decode, ignored by Encode).
  uint16_t port = 0;
  uint16_t count = 0;  // decoded: from the wire; Encode writes the gossip count (0 if not a ping)
  uint64_t current_epoch = 0;
  uint64_t config_epoch = 0;
  uint64_t offset = 0;
  NodeName sender{};
  SlotBitmap myslots{};
  NodeName replicaof{};     // all zero = primary
  IpField myip{};           // all zero = use the socket peer address
  uint16_t extensions = 0;  // decoded: from the wire; Encode writes the extension count
  uint16_t pport = 0;
  uint16_t cport = 0;
  uint16_t flags = 0;
  uint8_t state = 0;
  std::array<uint8_t, 3> mflags{};
};

struct GossipEntry {
  NodeName name{};
  uint32_t ping_sent = 0;      // Unix seconds
  uint32_t pong_received = 0;  // Unix seconds
  IpField ip{};
  uint16_t port = 0;
  uint16_t cport = 0;
  uint16_t flags = 0;
  uint16_t pport = 0;
  uint16_t reserved = 0;  // zero on the wire
};

// Ping extension types.
inline constexpr uint16_t kExtHostname = 0;
inline constexpr uint16_t kExtHumanNodename = 1;
inline constexpr uint16_t kExtForgottenNode = 2;
inline constexpr uint16_t kExtShardId = 3;
inline constexpr uint16_t kExtClientIpv4 = 4;
inline constexpr uint16_t kExtClientIpv6 = 5;
inline bool IsTextExt(uint16_t type) {
  return type == kExtHostname || type == kExtHumanNodename || type == kExtClientIpv4 ||
         type == kExtClientIpv6;
}

struct PingExt {
  uint16_t type = kExtHostname;
  std::string text;  // text types: the string without its NUL (decoded up to the first NUL)
  NodeName name{};   // FORGOTTEN_NODE: the node; SHARDID: the shard ID
  uint64_t ttl = 0;  // FORGOTTEN_NODE: seconds left on the blacklist
  std::string raw;   // unknown types: the payload after the 8-byte header, padding included
};

struct PingBody {
  std::vector<GossipEntry> gossip;
  // Decoded only when the header has EXT_DATA (as the peers validate); unknown types are kept
  // with their raw payload so the caller can skip them. Encode sets EXT_DATA when non-empty.
  std::vector<PingExt> extensions;
};

struct FailBody {
  NodeName name{};
};

struct PublishBody {  // PUBLISH and PUBLISHSHARD
  std::string channel;
  std::string message;
};

struct UpdateBody {
  uint64_t config_epoch = 0;
  NodeName name{};
  SlotBitmap slots{};
};

struct ModuleBody {
  std::array<uint8_t, 8> module_id{};  // the sender's native integer: opaque bytes
  uint8_t type = 0;
  std::string payload;  // `len` bytes
};

// One message: the header and the body that matches header.type (the others stay empty).
// FAILOVER_AUTH_REQUEST, FAILOVER_AUTH_ACK and MFSTART have no body.
struct Message {
  Header header;
  PingBody ping;        // PING, PONG, MEET
  FailBody fail;        // FAIL
  PublishBody publish;  // PUBLISH, PUBLISHSHARD
  UpdateBody update;    // UPDATE
  ModuleBody module;    // MODULE
};

// ---- Encoding ----

// The exact bytes of `msg` (totlen, count and extensions computed; big-endian except the module
// ID; unused bytes zero). Empty if the message cannot be represented: an unknown type, a light
// header on a type other than PUBLISH/PUBLISHSHARD, more than 65535 gossip entries or
// extensions, an extension of 64 KiB or more, a text extension containing a NUL, or a total
// length above 4 GiB.
std::vector<uint8_t> Encode(const Message& msg);

// ---- Decoding ----

enum class DecodeStatus {
  kOk,  // accept: header and body filled
  // Ignore, link kept: a type >= 11 with a valid header. Taken as well formed by both peers;
  // the header is filled (Valkey still applies its common header processing), the body is not.
  kUnknownType,
  // ---- Drop: the message stage of the peers ignores the packet and keeps the link. The header
  // fields that were present are filled, so the caller can count the packet by type. ----
  kLightNotAllowed,  // light bit on a type other than PUBLISH/PUBLISHSHARD (Valkey: not counted)
  kBadVersion,       // ver != 1
  kLengthMismatch,   // totlen != the expected length of the type (this includes a gossip count
                     // or a publish/module length that does not fit in totlen)
  kBadExtension,     // an extension header that does not fit, a length < 8, not a multiple of 8,
                     // >= 64 KiB, past totlen, or too short for its known type's payload
  kBadNodeName,      // the sender, a non-null replicaof, or the node a FAIL or UPDATE names is
                     // not a valid node ID (NodeNameIsValid); beyond Valkey, which takes it
  // ---- Close the link: the stream cannot be trusted or re-synchronised. ----
  kBadSignature,  // the first 4 bytes are not "RCmb"
  kBadLength,     // totlen < 2256 (full header) or < 16 (light header)
  kTooLarge,      // totlen above the framing limit (FrameNext only; our own limit)
  kTruncated,     // fewer bytes than totlen (or than 14): a framing error of the caller
};

enum class Disposition {
  kAccept,  // process the message
  kIgnore,  // well formed but not understood: log, keep the link
  kDrop,    // malformed: drop it, count it, keep the link
  kClose,   // close the link (the cron reconnects)
};
Disposition DispositionOf(DecodeStatus status);
const char* DecodeStatusName(DecodeStatus status);

// Decodes the message at the start of data[0..len). Reads only the first totlen bytes (bytes
// after them belong to the next message) and never reads outside [data, data+len). On any
// status `msg` is reset first, then filled as far as the status says.
DecodeStatus Decode(const uint8_t* data, size_t len, Message* msg);

// ---- Stream framing (the link reader) ----

enum class FrameState {
  kNeedMore,  // not enough bytes yet; `length` = bytes needed in total (0 until totlen is seen)
  kComplete,  // data[0..length) is one whole message: pass it to Decode
  kFatal,     // close the link; `error` says why (kBadSignature, kBadLength or kTooLarge)
};
struct Frame {
  FrameState state = FrameState::kNeedMore;
  size_t length = 0;
  DecodeStatus error = DecodeStatus::kOk;
};
// Looks at the buffered bytes of a link: whether they start with one complete message. A bad
// signature is reported as soon as the bytes buffered so far differ from "RCmb"; totlen is
// checked once 14 bytes are buffered, as Valkey does.
Frame FrameNext(const uint8_t* data, size_t len, uint32_t max_len = kDefaultMaxMessageLen);

}  // namespace cluster
