// Cluster bus codec: hand-built bytes of every message type, packets captured from real Valkey
// 8.0.1 and Redis 7.0.15 nodes, each malformed case with its status, framing, and fuzzing.
#include "cluster/bus_codec.h"

#include <cstring>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "check.h"

namespace {

using cluster::Decode;
using cluster::DecodeStatus;
using cluster::Disposition;
using cluster::DispositionOf;
using cluster::Encode;
using cluster::Frame;
using cluster::FrameNext;
using cluster::FrameState;
using cluster::Message;
using cluster::NodeName;
using cluster::PingExt;
using Bytes = std::vector<uint8_t>;

// ---- Byte helpers written from Valkey 8's clusterMsg offsets, independent of the codec ----

void Put16(Bytes* b, size_t off, uint16_t v) {
  (*b)[off] = v >> 8;
  (*b)[off + 1] = v & 0xff;
}
void Put32(Bytes* b, size_t off, uint32_t v) {
  for (int i = 0; i < 4; i++) (*b)[off + i] = (v >> (24 - 8 * i)) & 0xff;
}
void Put64(Bytes* b, size_t off, uint64_t v) {
  Put32(b, off, v >> 32);
  Put32(b, off + 4, v & 0xffffffff);
}
void PutStr(Bytes* b, size_t off, std::string_view s) {
  memcpy(b->data() + off, s.data(), s.size());
}
uint32_t Get32(const Bytes& b, size_t off) {
  return uint32_t{b[off]} << 24 | uint32_t{b[off + 1]} << 16 | uint32_t{b[off + 2]} << 8 |
         b[off + 3];
}

// Hex, where "(xx*N)" stands for N bytes of value xx (captured headers are mostly runs).
Bytes Unhex(std::string_view h) {
  Bytes out;
  size_t i = 0;
  while (i < h.size()) {
    if (h[i] == '(') {
      int byte = std::stoi(std::string(h.substr(i + 1, 2)), nullptr, 16);
      size_t close = h.find(')', i);
      int n = std::stoi(std::string(h.substr(i + 4, close - i - 4)));
      out.insert(out.end(), n, static_cast<uint8_t>(byte));
      i = close + 1;
    } else {
      out.push_back(static_cast<uint8_t>(std::stoi(std::string(h.substr(i, 2)), nullptr, 16)));
      i += 2;
    }
  }
  return out;
}

NodeName Name(std::string_view s) {
  NodeName n{};
  cluster::NodeNameFromString(s, &n);
  return n;
}

const char kSender[] = "0123456789abcdef0123456789abcdef01234567";
const char kPrimary[] = "fedcba9876543210fedcba9876543210fedcba98";
const char kOther[] = "aaaabbbbccccddddeeeeffff0000111122223333";
const char kShard[] = "5a635fc46e3df5805469d338fe992b717cb8fb7b";

// The sample header's fields as bytes at Valkey 8's clusterMsg offsets, for a message of `type`.
Bytes HeaderBytes(uint16_t type, uint32_t totlen, bool replica = false) {
  Bytes b(totlen, 0);
  PutStr(&b, 0, "RCmb");
  Put32(&b, 4, totlen);
  Put16(&b, 8, 1);
  Put16(&b, 10, 7000);
  Put16(&b, 12, type);
  Put64(&b, 16, 0x0102030405060708);
  Put64(&b, 24, 5);
  Put64(&b, 32, 0x1122334455667788);
  PutStr(&b, 40, kSender);
  // Slots 0, 7, 8, 5460, 16383: byte s/8, bit s%8.
  b[80 + 0] |= 0x01 | 0x80;
  b[80 + 1] |= 0x01;
  b[80 + 5460 / 8] |= 1 << (5460 % 8);
  b[80 + 2047] |= 0x80;
  if (replica) PutStr(&b, 2128, kPrimary);
  PutStr(&b, 2168, "10.0.0.1");
  Put16(&b, 2246, 7443);
  Put16(&b, 2248, 17000);
  Put16(&b, 2250, replica ? 0x0812 : 0x0811);
  b[2252] = 0;
  return b;
}

// The same header as a struct.
Message SampleMessage(uint16_t type, bool replica = false) {
  Message m;
  cluster::Header& h = m.header;
  h.type = type;
  h.port = 7000;
  h.current_epoch = 0x0102030405060708;
  h.config_epoch = 5;
  h.offset = 0x1122334455667788;
  h.sender = Name(kSender);
  for (int s : {0, 7, 8, 5460, 16383}) cluster::SlotSet(&h.myslots, s);
  if (replica) h.replicaof = Name(kPrimary);
  cluster::IpFromString("10.0.0.1", &h.myip);
  h.pport = 7443;
  h.cport = 17000;
  h.flags = replica ? 0x0812 : 0x0811;
  return m;
}

// Decodes, checks the status, and that re-encoding gives the same bytes.
bool DecodesBack(const Bytes& b, Message* m) {
  if (Decode(b.data(), b.size(), m) != DecodeStatus::kOk) return false;
  return Encode(*m) == b;
}

void CheckSampleHeader(const cluster::Header& h, uint16_t type, size_t totlen) {
  CHECK_EQ(h.totlen, totlen);
  CHECK_EQ(h.ver, 1);
  CHECK_EQ(h.type, type);
  CHECK(!h.light);
  CHECK_EQ(h.port, 7000);
  CHECK_EQ(h.current_epoch, 0x0102030405060708u);
  CHECK_EQ(h.config_epoch, 5u);
  CHECK_EQ(h.offset, 0x1122334455667788u);
  CHECK_EQ(cluster::NodeNameToString(h.sender), kSender);
  CHECK_EQ(cluster::SlotCount(h.myslots), 5);
  CHECK(cluster::SlotTest(h.myslots, 5460));
  CHECK(!cluster::SlotTest(h.myslots, 5461));
  CHECK_EQ(cluster::IpToString(h.myip), "10.0.0.1");
  CHECK_EQ(h.pport, 7443);
  CHECK_EQ(h.cport, 17000);
}

// ---- Helpers ----

TEST_CASE(BusSlotBitmapAndNames) {
  cluster::SlotBitmap b{};
  cluster::SlotSet(&b, 0);
  cluster::SlotSet(&b, 9);
  cluster::SlotSet(&b, 16383);
  CHECK_EQ(b[0], 0x01);
  CHECK_EQ(b[1], 0x02);
  CHECK_EQ(b[2047], 0x80);
  CHECK_EQ(cluster::SlotCount(b), 3);
  cluster::SlotClear(&b, 9);
  CHECK(!cluster::SlotTest(b, 9));
  CHECK(cluster::SlotTest(b, 16383));

  NodeName n{};
  CHECK(cluster::NodeNameIsNull(n));
  CHECK(!cluster::NodeNameIsValid(n));
  CHECK(!cluster::NodeNameFromString("abc", &n));
  CHECK(cluster::NodeNameIsNull(n));
  CHECK(cluster::NodeNameFromString(kSender, &n));
  CHECK(cluster::NodeNameIsValid(n));
  CHECK_EQ(cluster::NodeNameToString(n), kSender);
  n[3] = 'A';  // upper case is not accepted by either server
  CHECK(!cluster::NodeNameIsValid(n));
  n[3] = 'z';  // [a-z0-9] is what Valkey takes, but only hex IDs exist
  CHECK(!cluster::NodeNameIsValid(n));
  n[3] = 'g';
  CHECK(!cluster::NodeNameIsValid(n));
  n[3] = 'f';
  CHECK(cluster::NodeNameIsValid(n));

  cluster::IpField ip{};
  CHECK(cluster::IpFromString("fe80::1", &ip));
  CHECK_EQ(cluster::IpToString(ip), "fe80::1");
  CHECK(cluster::IpFromString(std::string(45, '1'), &ip));
  CHECK(!cluster::IpFromString(std::string(46, '1'), &ip));
  CHECK(!cluster::IpFromString(std::string("a\0b", 3), &ip));
  ip.fill('x');  // no NUL at all: all 46 bytes
  CHECK_EQ(cluster::IpToString(ip).size(), 46u);
}

TEST_CASE(BusFlagsAndNames) {
  CHECK_EQ(cluster::FormatNodeFlags(0x0811 | cluster::kNodeMyself), "myself,master");
  CHECK_EQ(cluster::FormatNodeFlags(0x0802), "slave");
  CHECK_EQ(cluster::FormatNodeFlags(0x0209 | 0x0004 | 0x0060),
           "master,fail?,fail,handshake,noaddr,nofailover");
  CHECK_EQ(cluster::FormatNodeFlags(0), "noflags");
  CHECK_EQ(cluster::FormatNodeFlags(cluster::kNodeMeet | cluster::kNodeLightHdr), "noflags");
  CHECK_EQ(std::string(cluster::MessageTypeName(0)), "ping");
  CHECK_EQ(std::string(cluster::MessageTypeName(5)), "auth-req");
  CHECK_EQ(std::string(cluster::MessageTypeName(6)), "auth-ack");
  CHECK_EQ(std::string(cluster::MessageTypeName(10)), "publishshard");
  CHECK_EQ(std::string(cluster::MessageTypeName(11)), "unknown");
  auto plain = cluster::ClientPortsFromWire(7000, 7443, false);
  CHECK_EQ(plain.tcp, 7000);
  CHECK_EQ(plain.tls, 7443);
  auto tls = cluster::ClientPortsFromWire(7443, 7000, true);
  CHECK_EQ(tls.tcp, 7000);
  CHECK_EQ(tls.tls, 7443);
}

// ---- Every message type, byte for byte ----

TEST_CASE(BusPingHandBuilt) {
  // 2 gossip entries, then hostname, human nodename, client IPv4, client IPv6, forgotten node,
  // an unknown type 9 and the shard ID.
  const size_t exts = 24 + 16 + 24 + 16 + 56 + 16 + 48;
  const size_t totlen = 2256 + 2 * 104 + exts;
  Bytes b = HeaderBytes(0, totlen);
  Put16(&b, 14, 2);    // count
  Put16(&b, 2214, 7);  // extensions
  b[2253] = 0x04;      // EXT_DATA
  size_t g = 2256;     // gossip 0: a PFAIL primary
  PutStr(&b, g, kOther);
  Put32(&b, g + 40, 1700000000);
  Put32(&b, g + 44, 1700000001);
  PutStr(&b, g + 48, "192.168.1.20");
  Put16(&b, g + 94, 7001);
  Put16(&b, g + 96, 17001);
  Put16(&b, g + 98, 0x0405);
  Put16(&b, g + 100, 0);
  g += 104;  // gossip 1: a replica, IPv6
  PutStr(&b, g, kPrimary);
  Put32(&b, g + 44, 1700000002);
  PutStr(&b, g + 48, "fe80::1");
  Put16(&b, g + 94, 7002);
  Put16(&b, g + 96, 17002);
  Put16(&b, g + 98, 0x0002);
  Put16(&b, g + 100, 7445);
  size_t e = 2256 + 208;
  // Each extension: length u32 (whole extension), type u16, 2 zero bytes, zero-padded payload.
  auto ext = [&](uint32_t len, uint16_t type, std::string_view payload) {
    Put32(&b, e, len);
    Put16(&b, e + 4, type);
    PutStr(&b, e + 8, payload);
    e += len;
  };
  ext(24, 0, "vk1.example");  // 11 + NUL = 12 -> 16
  ext(16, 1, "vk-one");       // 6 + NUL = 7 -> 8
  ext(24, 4, "10.9.8.7");     // 8 + NUL = 9 -> 16
  ext(16, 5, "fe80::1");      // 7 + NUL = 8 -> 8
  ext(56, 2, kOther);         // node ID + TTL u64
  Put64(&b, e - 8, 59);
  ext(16, 9, "opaque!!");  // unknown type: 8 payload bytes
  ext(48, 3, kShard);
  CHECK_EQ(e, b.size());

  Message m = SampleMessage(0);
  m.header.mflags[0] = cluster::kMsgFlagExtData;
  cluster::GossipEntry g0;
  g0.name = Name(kOther);
  g0.ping_sent = 1700000000;
  g0.pong_received = 1700000001;
  cluster::IpFromString("192.168.1.20", &g0.ip);
  g0.port = 7001;
  g0.cport = 17001;
  g0.flags = 0x0405;
  cluster::GossipEntry g1;
  g1.name = Name(kPrimary);
  g1.pong_received = 1700000002;
  cluster::IpFromString("fe80::1", &g1.ip);
  g1.port = 7002;
  g1.cport = 17002;
  g1.flags = 0x0002;
  g1.pport = 7445;
  m.ping.gossip = {g0, g1};
  PingExt host{cluster::kExtHostname, "vk1.example"};
  PingExt human{cluster::kExtHumanNodename, "vk-one"};
  PingExt ipv4{cluster::kExtClientIpv4, "10.9.8.7"};
  PingExt ipv6{cluster::kExtClientIpv6, "fe80::1"};
  PingExt forgotten{cluster::kExtForgottenNode};
  forgotten.name = Name(kOther);
  forgotten.ttl = 59;
  PingExt unknown{9};
  unknown.raw = "opaque!!";
  PingExt shard{cluster::kExtShardId};
  shard.name = Name(kShard);
  m.ping.extensions = {host, human, ipv4, ipv6, forgotten, unknown, shard};
  CHECK(Encode(m) == b);

  Message d;
  CHECK(DecodesBack(b, &d));
  CheckSampleHeader(d.header, 0, b.size());
  CHECK_EQ(d.header.count, 2);
  CHECK_EQ(d.header.extensions, 7);
  CHECK_EQ(d.header.flags, 0x0811);
  CHECK(cluster::NodeNameIsNull(d.header.replicaof));
  CHECK_EQ(d.ping.gossip.size(), 2u);
  CHECK_EQ(cluster::NodeNameToString(d.ping.gossip[0].name), kOther);
  CHECK_EQ(d.ping.gossip[0].ping_sent, 1700000000u);
  CHECK_EQ(d.ping.gossip[0].pong_received, 1700000001u);
  CHECK_EQ(cluster::IpToString(d.ping.gossip[0].ip), "192.168.1.20");
  CHECK_EQ(d.ping.gossip[0].port, 7001);
  CHECK_EQ(d.ping.gossip[0].cport, 17001);
  CHECK_EQ(d.ping.gossip[0].flags, 0x0405);
  CHECK_EQ(d.ping.gossip[1].pport, 7445);
  CHECK_EQ(d.ping.extensions.size(), 7u);
  CHECK_EQ(d.ping.extensions[0].text, "vk1.example");
  CHECK_EQ(d.ping.extensions[1].text, "vk-one");
  CHECK_EQ(d.ping.extensions[2].text, "10.9.8.7");
  CHECK_EQ(d.ping.extensions[3].text, "fe80::1");
  CHECK_EQ(d.ping.extensions[4].type, cluster::kExtForgottenNode);
  CHECK_EQ(cluster::NodeNameToString(d.ping.extensions[4].name), kOther);
  CHECK_EQ(d.ping.extensions[4].ttl, 59u);
  CHECK_EQ(d.ping.extensions[5].type, 9);
  CHECK_EQ(d.ping.extensions[5].raw, "opaque!!");
  CHECK_EQ(cluster::NodeNameToString(d.ping.extensions[6].name), kShard);
}

TEST_CASE(BusPongAndMeetHandBuilt) {
  // A replica's PONG with EXT_DATA and only its shard ID; a MEET with EXT_DATA and nothing else.
  Bytes pong = HeaderBytes(1, 2256 + 48, /*replica=*/true);
  Put16(&pong, 2214, 1);
  pong[2253] = 0x04;
  Put32(&pong, 2256, 48);
  Put16(&pong, 2260, 3);
  PutStr(&pong, 2264, kShard);
  Message m = SampleMessage(1, true);
  m.header.mflags[0] = cluster::kMsgFlagExtData;
  PingExt shard{cluster::kExtShardId};
  shard.name = Name(kShard);
  m.ping.extensions = {shard};
  CHECK(Encode(m) == pong);
  Message d;
  CHECK(DecodesBack(pong, &d));
  CheckSampleHeader(d.header, 1, 2304);
  CHECK_EQ(cluster::NodeNameToString(d.header.replicaof), kPrimary);
  CHECK_EQ(d.header.flags, 0x0812);

  Bytes meet = HeaderBytes(2, 2256);
  meet[2253] = 0x04;
  m = SampleMessage(2);
  m.header.mflags[0] = cluster::kMsgFlagExtData;  // set by the caller even with no extension
  CHECK(Encode(m) == meet);
  CHECK(DecodesBack(meet, &d));
  CHECK_EQ(d.header.type, cluster::kTypeMeet);
  CHECK(d.ping.gossip.empty() && d.ping.extensions.empty());

  // Encode sets EXT_DATA itself when there are extensions.
  m = SampleMessage(1, true);
  m.ping.extensions = {shard};
  CHECK(Encode(m) == pong);
}

TEST_CASE(BusFailHandBuilt) {
  Bytes b = HeaderBytes(3, 2296);
  PutStr(&b, 2256, kOther);
  Message m = SampleMessage(3);
  m.fail.name = Name(kOther);
  CHECK(Encode(m) == b);
  Message d;
  CHECK(DecodesBack(b, &d));
  CheckSampleHeader(d.header, 3, 2296);
  CHECK_EQ(cluster::NodeNameToString(d.fail.name), kOther);
}

TEST_CASE(BusPublishHandBuilt) {
  for (uint16_t type : {uint16_t{4}, uint16_t{10}}) {
    const std::string channel = "news", message = std::string("hi\0there", 8);
    Bytes b = HeaderBytes(type, 2256 + 8 + 4 + 8);
    Put32(&b, 2256, 4);
    Put32(&b, 2260, 8);
    PutStr(&b, 2264, channel);
    PutStr(&b, 2268, message);
    Message m = SampleMessage(type);
    m.publish = {channel, message};
    CHECK(Encode(m) == b);
    Message d;
    CHECK(DecodesBack(b, &d));
    CheckSampleHeader(d.header, type, 2276);
    CHECK_EQ(d.publish.channel, channel);
    CHECK_EQ(d.publish.message, message);

    // Light header: sig, totlen, ver 1, 2 zero bytes, type | 0x8000, 2 zero bytes, body.
    Bytes l(16 + 8 + 12, 0);
    PutStr(&l, 0, "RCmb");
    Put32(&l, 4, l.size());
    Put16(&l, 8, 1);
    Put16(&l, 12, type | 0x8000);
    Put32(&l, 16, 4);
    Put32(&l, 20, 8);
    PutStr(&l, 24, channel);
    PutStr(&l, 28, message);
    m.header.light = true;  // the full-header fields are not sent
    CHECK(Encode(m) == l);
    CHECK(DecodesBack(l, &d));
    CHECK(d.header.light);
    CHECK_EQ(d.header.type, type);
    CHECK_EQ(d.header.totlen, 36u);
    CHECK(cluster::NodeNameIsNull(d.header.sender));
    CHECK_EQ(d.publish.channel, channel);
    CHECK_EQ(d.publish.message, message);
  }
  // Empty channel and message.
  Message m = SampleMessage(4);
  Bytes b = HeaderBytes(4, 2264);
  CHECK(Encode(m) == b);
}

TEST_CASE(BusHeaderOnlyTypesHandBuilt) {
  // AUTH_REQUEST (a replica, with FORCEACK), AUTH_ACK, MFSTART (with PAUSED, as a paused primary
  // sends on every message).
  struct Case {
    uint16_t type;
    bool replica;
    uint8_t mflags0;
  } cases[] = {{5, true, 0x02}, {6, false, 0}, {8, true, 0x01}};
  for (const Case& c : cases) {
    Bytes b = HeaderBytes(c.type, 2256, c.replica);
    b[2253] = c.mflags0;
    Message m = SampleMessage(c.type, c.replica);
    m.header.mflags[0] = c.mflags0;
    CHECK(Encode(m) == b);
    Message d;
    CHECK(DecodesBack(b, &d));
    CheckSampleHeader(d.header, c.type, 2256);
    CHECK_EQ(d.header.mflags[0], c.mflags0);
    CHECK_EQ(cluster::NodeNameIsNull(d.header.replicaof), !c.replica);
  }
}

TEST_CASE(BusUpdateHandBuilt) {
  Bytes b = HeaderBytes(7, 4352);
  Put64(&b, 2256, 42);
  PutStr(&b, 2264, kOther);
  for (size_t i = 0; i < 2048; i += 2) b[2304 + i] = 0xff;  // slots of every even byte
  Message m = SampleMessage(7);
  m.update.config_epoch = 42;
  m.update.name = Name(kOther);
  for (int s = 0; s < 16384; s++) {
    if ((s / 8) % 2 == 0) cluster::SlotSet(&m.update.slots, s);
  }
  CHECK(Encode(m) == b);
  Message d;
  CHECK(DecodesBack(b, &d));
  CheckSampleHeader(d.header, 7, 4352);
  CHECK_EQ(d.update.config_epoch, 42u);
  CHECK_EQ(cluster::NodeNameToString(d.update.name), kOther);
  CHECK_EQ(cluster::SlotCount(d.update.slots), 8192);
  CHECK(cluster::SlotTest(d.update.slots, 16375));
  CHECK(!cluster::SlotTest(d.update.slots, 16383));
}

TEST_CASE(BusModuleHandBuilt) {
  Bytes b = HeaderBytes(9, 2256 + 13 + 5);
  const uint8_t id[8] = {0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88};  // opaque, not swapped
  memcpy(b.data() + 2256, id, 8);
  Put32(&b, 2264, 5);
  b[2268] = 200;
  PutStr(&b, 2269, "hello");
  Message m = SampleMessage(9);
  memcpy(m.module.module_id.data(), id, 8);
  m.module.type = 200;
  m.module.payload = "hello";
  CHECK(Encode(m) == b);
  Message d;
  CHECK(DecodesBack(b, &d));
  CheckSampleHeader(d.header, 9, 2274);
  CHECK(memcmp(d.module.module_id.data(), id, 8) == 0);
  CHECK_EQ(d.module.type, 200);
  CHECK_EQ(d.module.payload, "hello");
}

TEST_CASE(BusExtensionPadding) {
  // A string extension is 8 + roundup8(strlen + 1) bytes, zero padded.
  struct Case {
    const char* text;
    uint32_t len;
  } cases[] = {{"", 16},         {"a", 16},           {"1234567", 16},
               {"12345678", 24}, {"vk1.example", 24}, {"vk-one", 16},
               {"fe80::1", 16}};
  for (const Case& c : cases) {
    Message m = SampleMessage(0);
    m.ping.extensions = {PingExt{cluster::kExtHostname, c.text}};
    Bytes b = Encode(m);
    CHECK_EQ(b.size(), 2256 + c.len);
    CHECK_EQ(Get32(b, 2256), c.len);
    for (size_t i = 2264 + strlen(c.text); i < b.size(); i++) CHECK_EQ(b[i], 0);
    Message d;
    CHECK(DecodesBack(b, &d));
    CHECK_EQ(d.ping.extensions[0].text, c.text);
  }
}

TEST_CASE(BusEncodeRefusesWhatCannotBeSent) {
  Message m = SampleMessage(11);
  CHECK(Encode(m).empty());  // unknown type
  m = SampleMessage(0);
  m.header.light = true;
  CHECK(Encode(m).empty());  // light header on a PING
  m = SampleMessage(0);
  m.ping.extensions = {PingExt{cluster::kExtHostname, std::string("a\0b", 3)}};
  CHECK(Encode(m).empty());  // a NUL inside a string extension
  m.ping.extensions = {PingExt{cluster::kExtHostname, std::string(65519, 'h')}};
  CHECK_EQ(Encode(m).size(), 2256 + 65528u);  // the longest: 8 + roundup8(65519 + 1)
  m.ping.extensions = {PingExt{cluster::kExtHostname, std::string(65520, 'h')}};
  CHECK(Encode(m).empty());  // 8 + 65528 = 65536: too long for the peers' 16-bit length
  m.ping.extensions.clear();
  m.ping.gossip.resize(65536);
  CHECK(Encode(m).empty());  // count is 16 bits
  m.ping.gossip.resize(65535);
  CHECK_EQ(Encode(m).size(), 2256 + 104 * 65535u);
}

// ---- Malformed input: each case and its exact status ----

Bytes ValidPing() {
  Message m = SampleMessage(0);
  m.ping.gossip.resize(1);
  m.ping.gossip[0].name = Name(kOther);
  PingExt shard{cluster::kExtShardId};
  shard.name = Name(kShard);
  m.ping.extensions = {PingExt{cluster::kExtHostname, "vk1.example"}, shard};
  return Encode(m);  // 2256 + 104 + 24 + 48 = 2432; extensions at 2360 and 2384
}

TEST_CASE(BusMalformedStatuses) {
  const size_t kExt0 = 2360, kExt1 = 2384;
  struct Case {
    const char* name;
    std::function<Bytes()> make;
    DecodeStatus want;
  };
  const Case cases[] = {
      {"valid ping", [] { return ValidPing(); }, DecodeStatus::kOk},
      {"empty buffer", [] { return Bytes{}; }, DecodeStatus::kTruncated},
      {"13 bytes",
       [] {
         Bytes b = ValidPing();
         return Bytes(b.begin(), b.begin() + 13);
       },
       DecodeStatus::kTruncated},
      {"one byte short",
       [] {
         Bytes b = ValidPing();
         b.pop_back();
         return b;
       },
       DecodeStatus::kTruncated},
      {"bad signature",
       [] {
         Bytes b = ValidPing();
         b[3] = 'B';
         return b;
       },
       DecodeStatus::kBadSignature},
      {"bad signature in 2 bytes",
       [] {
         return Bytes{'R', 'X'};
       },
       DecodeStatus::kBadSignature},
      {"totlen 100",
       [] {
         Bytes b = ValidPing();
         Put32(&b, 4, 100);
         return b;
       },
       DecodeStatus::kBadLength},
      {"totlen 2255",
       [] {
         Bytes b = ValidPing();
         Put32(&b, 4, 2255);
         return b;
       },
       DecodeStatus::kBadLength},
      {"light totlen 15",
       [] {
         Bytes b = ValidPing();
         Put32(&b, 4, 15);
         Put16(&b, 12, 0x8004);
         return b;
       },
       DecodeStatus::kBadLength},
      {"totlen beyond the buffer",
       [] {
         Bytes b = ValidPing();
         Put32(&b, 4, 2440);
         return b;
       },
       DecodeStatus::kTruncated},
      {"version 2",
       [] {
         Bytes b = ValidPing();
         Put16(&b, 8, 2);
         return b;
       },
       DecodeStatus::kBadVersion},
      {"version 0",
       [] {
         Bytes b = ValidPing();
         Put16(&b, 8, 0);
         return b;
       },
       DecodeStatus::kBadVersion},
      {"light PING",
       [] {
         Bytes b = ValidPing();
         Put16(&b, 12, 0x8000);
         return b;
       },
       DecodeStatus::kLightNotAllowed},
      {"light unknown type",
       [] {
         Bytes b = ValidPing();
         Put16(&b, 12, 0x802a);
         return b;
       },
       DecodeStatus::kLightNotAllowed},
      {"type 42",
       [] {
         Bytes b = ValidPing();
         Put16(&b, 12, 42);
         return b;
       },
       DecodeStatus::kUnknownType},
      {"type 11 with any length",
       [] {
         Bytes b = HeaderBytes(11, 2300);
         return b;
       },
       DecodeStatus::kUnknownType},
      {"count one too many",
       [] {
         Bytes b = ValidPing();
         Put16(&b, 14, 2);
         return b;
       },
       DecodeStatus::kLengthMismatch},
      {"absurd count",
       [] {
         Bytes b = ValidPing();
         Put16(&b, 14, 65535);
         return b;
       },
       DecodeStatus::kLengthMismatch},
      {"count one too few",
       [] {
         Bytes b = ValidPing();
         Put16(&b, 14, 0);
         return b;
       },
       DecodeStatus::kBadExtension},
      {"extensions one too few",
       [] {
         Bytes b = ValidPing();
         Put16(&b, 2214, 1);
         return b;
       },
       DecodeStatus::kLengthMismatch},
      {"extensions one too many",
       [] {
         Bytes b = ValidPing();
         Put16(&b, 2214, 3);
         return b;
       },
       DecodeStatus::kBadExtension},
      {"extension bytes without EXT_DATA",
       [] {
         Bytes b = ValidPing();
         b[2253] = 0;
         return b;
       },
       DecodeStatus::kLengthMismatch},
      {"ext length not a multiple of 8",
       [=] {
         Bytes b = ValidPing();
         Put32(&b, kExt0, 20);
         return b;
       },
       DecodeStatus::kBadExtension},
      {"ext length 0",
       [=] {
         Bytes b = ValidPing();
         Put32(&b, kExt0, 0);
         return b;
       },
       DecodeStatus::kBadExtension},
      {"ext length past totlen",
       [=] {
         Bytes b = ValidPing();
         Put32(&b, kExt1, 56);
         return b;
       },
       DecodeStatus::kBadExtension},
      {"ext length 64 KiB",
       [=] {
         Bytes b = ValidPing();
         Put32(&b, kExt0, 65536);
         return b;
       },
       DecodeStatus::kBadExtension},
      {"ext length 2^32-8",
       [=] {
         Bytes b = ValidPing();
         Put32(&b, kExt0, 0xfffffff8);
         return b;
       },
       DecodeStatus::kBadExtension},
      {"shard ID extension too short",
       [=] {
         Bytes b = ValidPing();
         Put32(&b, kExt1, 40);
         b.erase(b.end() - 8, b.end());
         Put32(&b, 4, b.size());
         return b;
       },
       DecodeStatus::kBadExtension},
      {"forgotten node extension too short",
       [=] {
         Bytes b = ValidPing();
         Put16(&b, kExt1 + 4, 2);
         return b;
       },
       DecodeStatus::kBadExtension},
      {"FAIL with a trailing byte",
       [] {
         Bytes b = HeaderBytes(3, 2297);
         return b;
       },
       DecodeStatus::kLengthMismatch},
      {"FAIL without body", [] { return HeaderBytes(3, 2256); }, DecodeStatus::kLengthMismatch},
      {"PUBLISH without lengths", [] { return HeaderBytes(4, 2260); },
       DecodeStatus::kLengthMismatch},
      {"PUBLISH channel too long",
       [] {
         Bytes b = HeaderBytes(4, 2270);
         Put32(&b, 2256, 3);
         return b;
       },
       DecodeStatus::kLengthMismatch},
      // Same 32-bit wrap: 2256 + 8 + 0xfffffffc + 12 = 2272 (mod 2^32).
      {"PUBLISH lengths overflow 32 bits",
       [] {
         Bytes b = HeaderBytes(4, 2264 + 8);
         Put32(&b, 2256, 0xfffffffc);
         Put32(&b, 2260, 12);
         return b;
       },
       DecodeStatus::kLengthMismatch},
      {"light PUBLISH without lengths",
       [] {
         Bytes b(20, 0);
         PutStr(&b, 0, "RCmb");
         Put32(&b, 4, 20);
         Put16(&b, 8, 1);
         Put16(&b, 12, 0x800a);
         return b;
       },
       DecodeStatus::kLengthMismatch},
      {"light PUBLISH version 2",
       [] {
         Bytes b(24, 0);
         PutStr(&b, 0, "RCmb");
         Put32(&b, 4, 24);
         Put16(&b, 8, 2);
         Put16(&b, 12, 0x8004);
         return b;
       },
       DecodeStatus::kBadVersion},
      {"AUTH_REQUEST with a body", [] { return HeaderBytes(5, 2264); },
       DecodeStatus::kLengthMismatch},
      {"AUTH_ACK with a body", [] { return HeaderBytes(6, 2257); }, DecodeStatus::kLengthMismatch},
      {"MFSTART with a body", [] { return HeaderBytes(8, 2296); }, DecodeStatus::kLengthMismatch},
      {"UPDATE one byte short", [] { return HeaderBytes(7, 4351); }, DecodeStatus::kLengthMismatch},
      {"MODULE without its fixed part", [] { return HeaderBytes(9, 2268); },
       DecodeStatus::kLengthMismatch},
      {"MODULE len too large",
       [] {
         Bytes b = HeaderBytes(9, 2270);
         Put32(&b, 2264, 2);
         return b;
       },
       DecodeStatus::kLengthMismatch},
      // Node IDs other than 40 hex chars: only a broken or hostile peer sends them.
      {"sender ID not hex",
       [] {
         Bytes b = ValidPing();
         b[40 + 39] = 'z';
         return b;
       },
       DecodeStatus::kBadNodeName},
      {"sender ID all zero",
       [] {
         Bytes b = ValidPing();
         for (int i = 0; i < 40; i++) b[40 + i] = 0;
         return b;
       },
       DecodeStatus::kBadNodeName},
      {"replicaof upper case",
       [] {
         Bytes b = HeaderBytes(1, 2256);
         PutStr(&b, 2128, "0123456789ABCDEF0123456789abcdef01234567");
         return b;
       },
       DecodeStatus::kBadNodeName},
      {"FAIL naming a zero ID", [] { return HeaderBytes(3, 2296); }, DecodeStatus::kBadNodeName},
      {"UPDATE naming a non-hex ID",
       [] {
         Bytes b = HeaderBytes(7, 4352);
         PutStr(&b, 2264, "node-that-is-not-hex-node-that-is-not-he");
         return b;
       },
       DecodeStatus::kBadNodeName},
      // Valkey sums these lengths in 32 bits, so 2256 + 13 + 0xffffffff passes its check as
      // 2268; we compute in 64 bits.
      {"MODULE len wrapping 32 bits",
       [] {
         Bytes b = HeaderBytes(9, 2268);
         Put32(&b, 2264, 0xffffffff);
         return b;
       },
       DecodeStatus::kLengthMismatch},
  };
  for (const Case& c : cases) {
    Bytes b = c.make();
    Message m;
    DecodeStatus got = Decode(b.data(), b.size(), &m);
    if (got != c.want) {
      fprintf(stderr, "  case '%s': got %s, want %s\n", c.name, cluster::DecodeStatusName(got),
              cluster::DecodeStatusName(c.want));
    }
    CHECK(got == c.want);
  }
}

TEST_CASE(BusDropOrClose) {
  // Which decode results drop the message (link kept) and which close the link.
  CHECK(DispositionOf(DecodeStatus::kOk) == Disposition::kAccept);
  CHECK(DispositionOf(DecodeStatus::kUnknownType) == Disposition::kIgnore);
  for (DecodeStatus s : {DecodeStatus::kLightNotAllowed, DecodeStatus::kBadVersion,
                         DecodeStatus::kLengthMismatch, DecodeStatus::kBadExtension,
                         DecodeStatus::kBadNodeName}) {
    CHECK(DispositionOf(s) == Disposition::kDrop);
  }
  for (DecodeStatus s : {DecodeStatus::kBadSignature, DecodeStatus::kBadLength,
                         DecodeStatus::kTooLarge, DecodeStatus::kTruncated}) {
    CHECK(DispositionOf(s) == Disposition::kClose);
  }
}

TEST_CASE(BusDroppedPacketsKeepTheirHeader) {
  // So the bus can count received packets by type even when they are dropped.
  Bytes b = ValidPing();
  Put16(&b, 8, 2);
  Message m;
  CHECK(Decode(b.data(), b.size(), &m) == DecodeStatus::kBadVersion);
  CHECK_EQ(m.header.type, 0);
  CHECK_EQ(m.header.ver, 2);
  CHECK_EQ(cluster::NodeNameToString(m.header.sender), kSender);
  CHECK(m.ping.gossip.empty());

  b = HeaderBytes(42, 2300);
  CHECK(Decode(b.data(), b.size(), &m) == DecodeStatus::kUnknownType);
  CHECK_EQ(m.header.type, 42);
  CHECK_EQ(m.header.current_epoch, 0x0102030405060708u);
}

TEST_CASE(BusExtensionsWithoutExtData) {
  // Validation counts extension bytes only with EXT_DATA: a non-zero `extensions` without it
  // and without the bytes is well formed, and no extension is decoded.
  Message m = SampleMessage(0);
  Bytes b = Encode(m);
  Put16(&b, 2214, 2);
  CHECK(Decode(b.data(), b.size(), &m) == DecodeStatus::kOk);
  CHECK_EQ(m.header.extensions, 2);
  CHECK(m.ping.extensions.empty());
}

TEST_CASE(BusUnknownExtensionsSkipped) {
  // Unknown extension types are kept opaque, and the ones after them still decode.
  Message m = SampleMessage(0);
  PingExt unknown{77};
  unknown.raw = std::string(24, 'u');
  m.ping.extensions = {unknown, PingExt{cluster::kExtHostname, "after"}};
  Bytes b = Encode(m);
  CHECK_EQ(b.size(), 2256 + 32 + 16u);
  Message d;
  CHECK(DecodesBack(b, &d));
  CHECK_EQ(d.ping.extensions[0].type, 77);
  CHECK_EQ(d.ping.extensions[1].text, "after");
  // A string extension without a NUL is read up to its end.
  Put16(&b, 2256 + 4, 0);
  memset(b.data() + 2264, 'x', 24);
  CHECK(Decode(b.data(), b.size(), &d) == DecodeStatus::kOk);
  CHECK_EQ(d.ping.extensions[0].text, std::string(24, 'x'));
}

TEST_CASE(BusDecodeReadsOnlyTotlen) {
  // Bytes after totlen belong to the next message.
  Bytes two = ValidPing();
  Bytes fail = HeaderBytes(3, 2296);
  PutStr(&fail, 2256, kOther);
  two.insert(two.end(), fail.begin(), fail.end());
  Message m;
  CHECK(Decode(two.data(), two.size(), &m) == DecodeStatus::kOk);
  CHECK_EQ(m.header.type, 0);
  CHECK_EQ(m.header.totlen, 2432u);
  CHECK(Decode(two.data() + 2432, two.size() - 2432, &m) == DecodeStatus::kOk);
  CHECK_EQ(m.header.type, 3);
}

// ---- Framing ----

TEST_CASE(BusFraming) {
  Bytes b = ValidPing();
  for (size_t n = 0; n < 14; n++) {
    Frame f = FrameNext(b.data(), n);
    CHECK(f.state == FrameState::kNeedMore);
    CHECK_EQ(f.length, 0u);
  }
  Frame f = FrameNext(b.data(), 14);
  CHECK(f.state == FrameState::kNeedMore);
  CHECK_EQ(f.length, 2432u);
  f = FrameNext(b.data(), 2431);
  CHECK(f.state == FrameState::kNeedMore);
  f = FrameNext(b.data(), 2432);
  CHECK(f.state == FrameState::kComplete);
  CHECK_EQ(f.length, 2432u);
  Bytes two = b;
  two.insert(two.end(), b.begin(), b.begin() + 100);
  f = FrameNext(two.data(), two.size());
  CHECK(f.state == FrameState::kComplete);
  CHECK_EQ(f.length, 2432u);

  // A bad signature is fatal as soon as one wrong byte is buffered.
  const uint8_t junk[] = {'G', 'E', 'T'};
  f = FrameNext(junk, 1);
  CHECK(f.state == FrameState::kFatal);
  CHECK(f.error == DecodeStatus::kBadSignature);
  f = FrameNext(b.data(), 3);
  CHECK(f.state == FrameState::kNeedMore);

  Bytes small = b;
  Put32(&small, 4, 2255);
  f = FrameNext(small.data(), 14);
  CHECK(f.state == FrameState::kFatal);
  CHECK(f.error == DecodeStatus::kBadLength);
  Put16(&small, 12, 0x8004);  // light: minimum 16
  Put32(&small, 4, 16);
  CHECK(FrameNext(small.data(), 14).state == FrameState::kNeedMore);
  CHECK(FrameNext(small.data(), 16).state == FrameState::kComplete);
  Put32(&small, 4, 15);
  CHECK(FrameNext(small.data(), 14).error == DecodeStatus::kBadLength);

  Bytes huge = b;
  Put32(&huge, 4, 0xffffffff);
  f = FrameNext(huge.data(), 14);
  CHECK(f.state == FrameState::kFatal);
  CHECK(f.error == DecodeStatus::kTooLarge);
  f = FrameNext(b.data(), 14, /*max_len=*/2431);
  CHECK(f.error == DecodeStatus::kTooLarge);
  f = FrameNext(b.data(), 14, /*max_len=*/2432);
  CHECK(f.state == FrameState::kNeedMore);
}

// ---- Packets captured from real nodes (a logging proxy on the bus port) ----
// Captured on 127.0.0.1 with cluster-node-timeout 5000. "(xx*N)" is N bytes of xx.

// Valkey 8.0.1 MEET (no extensions yet, EXT_DATA set, slots 0-5460).
const char kVk8Meet[] =
    "52436d62000008d0000165910002(00*9)010000000000000001(00*8)633265336435356630333866363630"
    "38626265303237336462623061653037313933326339646265(ff*682)1f(00*1485)65f5081101040000";
// Valkey 8.0.1 PONG answering that MEET: hostname + shard ID extensions.
const char kVk8PongToMeet[] =
    "52436d6200000918000165920001(00*9)020000000000000002(00*8)643063303132336165343838643634"
    "39633233386133666439366565666131636637643230643134(00*682)e0(ff*1365)(00*87)02(00*32)66"
    "590811010400000000001800000000766b622e6578616d706c65(00*8)300003000035613633356663343665"
    "336466353830353436396433333866653939326237313763623866623762";
// Valkey 8.0.1 PING after CLUSTER FORGET: 1 gossip entry; hostname, human nodename, forgotten
// node, shard ID.
const char kVk8PingForgotten[] =
    "52436d62000009c8000165910000000100000000000000020000000000000001(00*8)633265336435356630"
    "33386636363038626265303237336462623061653037313933326339646265(ff*682)1f(00*1452)04"
    "(00*32)66bd0811000400003865643537643936366133326564386261613866343136376230383634376162"
    "35306230386639366b0ebf9e6b0ebf9d3132372e302e302e31(00*37)659365f70c09000000000000001800"
    "000000766b612e6578616d706c65(00*8)1000010000766b2d61000000000000003800020000653835666161"
    "31643066343961656362316232623335626261613164626661303337663838353132000000000000003b0000"
    "0030000300003732346331363936653832643239663164386138303638366363396261386566333734343261"
    "6138";
// Valkey 8.0.1 FAIL about a killed slotless primary.
const char kVk8Fail[] =
    "52436d62000008f8000165910003(00*9)020000000000000001(00*8)633265336435356630333866363630"
    "38626265303237336462623061653037313933326339646265(ff*682)1f(00*1485)66bd08110000000065"
    "383566616131643066343961656362316232623335626261613164626661303337663838353132";
// Valkey 8.0.1 light-header PUBLISH chan-vk hello-from-valkey.
const char kVk8LightPublish[] =
    "52436d6200000030000100008004000000000007000000116368616e2d766b68656c6c6f2d66726f6d2d7661"
    "6c6b6579";
// Redis 7.0.15 MEET with cluster-announce-hostname rda.example.
const char kRedis70Meet[] =
    "52436d62000008e80001659b0002(00*9)030000000000000003(00*8)613363353636663662633039373337"
    "38346235343662383137383066616438633961623038666233(ff*1024)(00*1111)01(00*32)65ff001101"
    "04000000000018000000007264612e6578616d706c650000000000";
// Redis 7.0.15 PONG from a node without hostname: no EXT_DATA.
const char kRedis70Pong[] =
    "52436d62000008d00001659c0001(00*9)040000000000000004(00*8)326166386264396561616136303434"
    "39346539346237633339373265346438633464613631653666(00*1024)(ff*1024)(00*120)666300110100"
    "0000";
// Redis 7.0.15 full-header PUBLISH chan-rd hello-from-redis.
const char kRedis70Publish[] =
    "52436d62000008ef0001659b0004(00*9)040000000000000003(00*8)613363353636663662633039373337"
    "38346235343662383137383066616438633961623038666233(ff*1024)(00*1144)65ff0011000000000000"
    "0007000000106368616e2d726468656c6c6f2d66726f6d2d7265646973";

const char* const kGolden[] = {kVk8Meet,     kVk8PongToMeet,   kVk8PingForgotten,
                               kVk8Fail,     kVk8LightPublish, kRedis70Meet,
                               kRedis70Pong, kRedis70Publish};

TEST_CASE(BusGoldenValkey8Meet) {
  Bytes b = Unhex(kVk8Meet);
  CHECK_EQ(b.size(), 2256u);
  Frame f = FrameNext(b.data(), b.size());
  CHECK(f.state == FrameState::kComplete);
  Message m;
  CHECK(DecodesBack(b, &m));
  const cluster::Header& h = m.header;
  CHECK_EQ(h.type, cluster::kTypeMeet);
  CHECK_EQ(h.port, 26001);
  CHECK_EQ(h.cport, 26101);
  CHECK_EQ(h.pport, 0);  // TLS off
  CHECK_EQ(h.current_epoch, 1u);
  CHECK_EQ(h.config_epoch, 1u);
  CHECK_EQ(cluster::NodeNameToString(h.sender), "c2e3d55f038f6608bbe0273dbb0ae071932c9dbe");
  CHECK(cluster::NodeNameIsValid(h.sender));
  CHECK(cluster::NodeNameIsNull(h.replicaof));
  CHECK_EQ(cluster::IpToString(h.myip), "");
  CHECK_EQ(cluster::SlotCount(h.myslots), 5461);
  CHECK(cluster::SlotTest(h.myslots, 5460) && !cluster::SlotTest(h.myslots, 5461));
  CHECK_EQ(h.flags, cluster::kNodeLightHdr | cluster::kNodeMyself | cluster::kNodePrimary);
  CHECK_EQ(h.mflags[0], cluster::kMsgFlagExtData);  // set even with no extension
  CHECK_EQ(h.count, 0);
  CHECK_EQ(h.extensions, 0);
}

TEST_CASE(BusGoldenValkey8Extensions) {
  Bytes b = Unhex(kVk8PongToMeet);
  Message m;
  CHECK(DecodesBack(b, &m));
  CHECK_EQ(m.header.type, cluster::kTypePong);
  CHECK_EQ(m.header.cport, 26201);  // cluster-announce-bus-port
  CHECK_EQ(cluster::SlotCount(m.header.myslots), 16384 - 5461);
  CHECK_EQ(m.ping.extensions.size(), 2u);
  CHECK_EQ(m.ping.extensions[0].type, cluster::kExtHostname);
  CHECK_EQ(m.ping.extensions[0].text, "vkb.example");
  CHECK_EQ(m.ping.extensions[1].type, cluster::kExtShardId);  // always last
  CHECK(cluster::NodeNameIsValid(m.ping.extensions[1].name));

  b = Unhex(kVk8PingForgotten);
  CHECK(DecodesBack(b, &m));
  CHECK_EQ(m.header.type, cluster::kTypePing);
  CHECK_EQ(m.header.current_epoch, 2u);
  CHECK_EQ(m.ping.gossip.size(), 1u);
  const cluster::GossipEntry& g = m.ping.gossip[0];
  CHECK_EQ(cluster::NodeNameToString(g.name), "8ed57d966a32ed8baa8f4167b08647ab50b08f96");
  CHECK_EQ(cluster::IpToString(g.ip), "127.0.0.1");
  CHECK_EQ(g.port, 26003);
  CHECK_EQ(g.cport, 26103);
  CHECK_EQ(g.flags, cluster::kNodeLightHdr | cluster::kNodeExtSupported | cluster::kNodeFail |
                        cluster::kNodePrimary);
  CHECK_EQ(g.pong_received + 1, g.ping_sent);
  // Valkey's write order: hostname, human nodename, forgotten nodes, shard ID.
  CHECK_EQ(m.ping.extensions.size(), 4u);
  CHECK_EQ(m.ping.extensions[0].text, "vka.example");
  CHECK_EQ(m.ping.extensions[1].type, cluster::kExtHumanNodename);
  CHECK_EQ(m.ping.extensions[1].text, "vk-a");
  CHECK_EQ(m.ping.extensions[2].type, cluster::kExtForgottenNode);
  CHECK_EQ(cluster::NodeNameToString(m.ping.extensions[2].name),
           "e85faa1d0f49aecb1b2b35bbaa1dbfa037f88512");
  CHECK_EQ(m.ping.extensions[2].ttl, 59u);
  CHECK_EQ(m.ping.extensions[3].type, cluster::kExtShardId);
  CHECK_EQ(cluster::NodeNameToString(m.ping.extensions[3].name),
           "724c1696e82d29f1d8a80686cc9ba8ef37442aa8");
}

TEST_CASE(BusGoldenValkey8FailAndLightPublish) {
  Bytes b = Unhex(kVk8Fail);
  Message m;
  CHECK(DecodesBack(b, &m));
  CHECK_EQ(m.header.type, cluster::kTypeFail);
  CHECK_EQ(m.header.mflags[0], 0);  // EXT_DATA only on PING/PONG/MEET
  CHECK_EQ(cluster::NodeNameToString(m.fail.name), "e85faa1d0f49aecb1b2b35bbaa1dbfa037f88512");

  b = Unhex(kVk8LightPublish);
  CHECK_EQ(b.size(), 48u);
  CHECK(FrameNext(b.data(), 14).length == 48);
  CHECK(DecodesBack(b, &m));
  CHECK(m.header.light);
  CHECK_EQ(m.header.type, cluster::kTypePublish);
  CHECK_EQ(m.publish.channel, "chan-vk");
  CHECK_EQ(m.publish.message, "hello-from-valkey");
}

TEST_CASE(BusGoldenRedis70) {
  Bytes b = Unhex(kRedis70Meet);
  Message m;
  CHECK(DecodesBack(b, &m));
  CHECK_EQ(m.header.type, cluster::kTypeMeet);
  CHECK_EQ(m.header.port, 26011);
  CHECK_EQ(m.header.cport, 26111);
  CHECK_EQ(m.header.config_epoch, 3u);
  CHECK_EQ(m.header.flags, cluster::kNodeMyself | cluster::kNodePrimary);  // no bit 11
  CHECK_EQ(m.header.mflags[0], cluster::kMsgFlagExtData);  // because it sends its hostname
  CHECK_EQ(cluster::SlotCount(m.header.myslots), 8192);
  CHECK_EQ(m.ping.extensions.size(), 1u);
  CHECK_EQ(m.ping.extensions[0].type, cluster::kExtHostname);
  CHECK_EQ(m.ping.extensions[0].text, "rda.example");

  b = Unhex(kRedis70Pong);
  CHECK(DecodesBack(b, &m));
  CHECK_EQ(m.header.type, cluster::kTypePong);
  CHECK_EQ(m.header.cport, 26211);
  CHECK_EQ(m.header.mflags[0], 0);  // no hostname: no EXT_DATA
  CHECK(m.ping.extensions.empty());
  CHECK(cluster::SlotTest(m.header.myslots, 8192) && !cluster::SlotTest(m.header.myslots, 8191));

  b = Unhex(kRedis70Publish);
  CHECK(DecodesBack(b, &m));
  CHECK(!m.header.light);
  CHECK_EQ(m.header.type, cluster::kTypePublish);
  CHECK_EQ(m.publish.channel, "chan-rd");
  CHECK_EQ(m.publish.message, "hello-from-redis");
}

// ---- Fuzzing: any input gets a status, never a crash or an out-of-bounds read ----

// Decode, and when it succeeds re-encoding must decode to the same bytes again.
bool DecodeIsStable(const Bytes& b) {
  Message m;
  // An exact-size heap copy, so a sanitizer sees any read past the end.
  std::unique_ptr<uint8_t[]> copy(new uint8_t[b.size() + 1]);
  if (!b.empty()) memcpy(copy.get(), b.data(), b.size());
  DecodeStatus s = Decode(b.empty() ? nullptr : copy.get(), b.size(), &m);
  Frame f = FrameNext(b.empty() ? nullptr : copy.get(), b.size());
  if (f.state == FrameState::kComplete && f.length > b.size()) return false;
  if (s != DecodeStatus::kOk) return true;
  Bytes again = Encode(m);
  if (again.empty()) return false;
  Message m2;
  if (Decode(again.data(), again.size(), &m2) != DecodeStatus::kOk) return false;
  return Encode(m2) == again;
}

TEST_CASE(BusFuzzRandomBuffers) {
  std::mt19937 rng(12345);
  for (int i = 0; i < 3000; i++) {
    Bytes b(rng() % 3000);
    for (auto& c : b) c = rng() & 0xff;
    if (b.size() >= 16 && rng() % 2) {  // make it get past the read stage
      memcpy(b.data(), "RCmb", 4);
      Put32(&b, 4, rng() % 3 ? b.size() : rng() % 5000);
      Put16(&b, 8, 1);
      Put16(&b, 12, (rng() % 12) | (rng() % 4 == 0 ? 0x8000 : 0));
      if (b.size() >= 2256 && rng() % 2) b[2253] = 0x04;
    }
    CHECK(DecodeIsStable(b));
  }
}

TEST_CASE(BusFuzzMutations) {
  std::mt19937 rng(67890);
  std::vector<Bytes> seeds;
  for (const char* hex : kGolden) seeds.push_back(Unhex(hex));
  seeds.push_back(ValidPing());
  for (uint16_t t = 3; t <= 10; t++) {
    Message m = SampleMessage(t);
    m.publish = {"ch", "msg"};
    m.module.payload = "xyz";
    seeds.push_back(Encode(m));
  }
  const size_t kLengthFields[] = {4, 14, 2214, 2256, 2260, 2264};
  int ok = 0;
  for (int i = 0; i < 20000; i++) {
    Bytes b = seeds[rng() % seeds.size()];
    int edits = 1 + rng() % 3;
    for (int e = 0; e < edits; e++) {
      switch (rng() % 6) {
        case 0:  // bit flip
          if (!b.empty()) b[rng() % b.size()] ^= 1 << (rng() % 8);
          break;
        case 1:  // truncation
          b.resize(rng() % (b.size() + 1));
          break;
        case 2: {  // a length or count field: small delta or random
          size_t off = kLengthFields[rng() % 6];
          if (off + 4 > b.size()) break;
          uint32_t v = Get32(b, off);
          Put32(&b, off, rng() % 2 ? v + (rng() % 17) - 8 : static_cast<uint32_t>(rng()));
          break;
        }
        case 3: {  // an extension length, at a likely extension offset
          if (b.size() < 2264) break;
          size_t off = 2256 + 8 * (rng() % ((b.size() - 2256) / 8 + 1));
          if (off + 4 <= b.size()) Put32(&b, off, rng() % 2 ? 8 * (rng() % 12) : rng() % 100);
          break;
        }
        case 4:  // extra bytes, with totlen following or not
          b.insert(b.end(), rng() % 64, static_cast<uint8_t>(rng()));
          if (b.size() >= 8 && rng() % 2) Put32(&b, 4, b.size());
          break;
        case 5:  // count / extensions / EXT_DATA
          if (b.size() >= 2256) {
            Put16(&b, rng() % 2 ? 14 : 2214, rng() % 8);
            b[2253] ^= 0x04;
          }
          break;
      }
    }
    Message m;
    if (Decode(b.data(), b.size(), &m) == DecodeStatus::kOk) ok++;
    CHECK(DecodeIsStable(b));
  }
  CHECK(ok > 100);  // the mutations keep some packets valid
}

}  // namespace
