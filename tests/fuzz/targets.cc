// The fuzz targets: every decoder of bytes that come from outside the process. Each checks,
// beyond "no crash, no sanitizer report", a property that must hold for every input.
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "base/crc64.h"
#include "base/log.h"
#include "base/time.h"
#include "base/util.h"
#include "cluster/bus_codec.h"
#include "cluster/nodes_conf.h"
#include "cluster/state.h"
#include "db/db.h"
#include "db/hash.h"
#include "db/hll.h"
#include "db/stream.h"
#include "db/list.h"
#include "db/set.h"
#include "db/zset.h"
#include "fuzz.h"
#include "net/reply.h"
#include "net/resp_parser.h"
#include "persist/aof_format.h"
#include "persist/object_codec.h"
#include "persist/snapshot.h"
#include "persist/value_codec.h"
#include "server/command.h"
#include "server/aof.h"
#include "server/blocking.h"
#include "server/config.h"
#include "server/server.h"
#include "tools/check_aof.h"

namespace {

// The value types' free/dup hooks, as the server registers them at start.
const bool types_registered = [] {
  db::RegisterListType();
  db::RegisterSetType();
  db::RegisterZSetType();
  db::RegisterHashType();
  db::RegisterStreamType();
  return true;
}();

std::string Unhex(const char* h) {
  std::string out;
  for (size_t i = 0; h[i] && h[i + 1]; i += 2)
    out.push_back(static_cast<char>(std::stoi(std::string(h + i, 2), nullptr, 16)));
  return out;
}

// ---------------------------------------------------------------------------------------------
// resp: the client request parser. Property: feeding the input whole, or cut into pieces at
// points derived from the input (as a socket delivers it, consumed bytes dropped), gives the
// same commands and the same verdict.

using Cmds = std::vector<std::vector<std::string>>;

std::string Feed(const uint8_t* d, size_t n, size_t step_seed, Cmds* out) {
  net::RequestParser p;
  net::ParserLimits lim;
  lim.max_bulk_len = 1 << 20;
  std::string buf;
  size_t pos = 0, fed = 0;
  uint32_t x = static_cast<uint32_t>(step_seed) * 2654435761u + 1;
  while (fed < n || fed == 0) {
    size_t step = step_seed == 0 ? n : 1 + (x >> 16) % 23;
    x = x * 1103515245u + 12345u;
    step = std::min(step, n - fed);
    buf.append(reinterpret_cast<const char*>(d) + fed, step);
    fed += step;
    while (true) {
      auto st = p.Parse(buf.data(), buf.size(), &pos, lim);
      if (st == net::RequestParser::kNeedMore) break;
      if (st == net::RequestParser::kError) return p.error();
      if (st == net::RequestParser::kCommand) {
        FUZZ_CHECK(!p.args().empty());
        std::vector<std::string> c;
        for (auto a : p.args()) c.emplace_back(a);
        out->push_back(std::move(c));
      }
      FUZZ_CHECK(pos <= buf.size());
    }
    buf.erase(0, pos);
    p.Shift(pos);
    pos = 0;
    if (n == 0) break;
  }
  return "";
}

void RunResp(const uint8_t* d, size_t n) {
  Cmds whole, pieces;
  std::string e1 = Feed(d, n, 0, &whole);
  std::string e2 = Feed(d, n, n ? d[0] + 1 : 1, &pieces);
  FUZZ_CHECK(e1 == e2);
  FUZZ_CHECK(whole == pieces);
  std::vector<std::string> argv;
  net::SplitArgs(std::string_view(reinterpret_cast<const char*>(d), n), &argv);
}

std::vector<std::string> RespSeeds() {
  return {"*3\r\n$3\r\nSET\r\n$3\r\nkey\r\n$5\r\nvalue\r\n",
          "PING\r\n",
          "set \"a b\" 'c\\'d' \"\\x41\\n\"\n",
          "*2\r\n$4\r\nECHO\r\n$0\r\n\r\n*0\r\n*-1\r\n\r\n",
          "*1\r\n$4\r\nPING\r\n*2\r\n$3\r\nGET\r\n$1\r\nk\r\nMULTI\r\n"};
}

fuzz::Registrar resp_target({"resp", RunResp, RespSeeds,
                             {"*", "$", "\r\n", "\"", "'", "\\x", "-1", "*1\r\n$"},
                             8192});

// ---------------------------------------------------------------------------------------------
// dump: DUMP payloads as RESTORE reads them. The input is the payload without its CRC64 (the
// target appends the right one, so the decoder is reached). Property: what decodes builds an
// object, and that object's DUMP decodes again with the same element count.

size_t Count(const persist::Value& v) {
  return v.str.size() + v.elems.size() + v.zelems.size() + v.pairs.size();
}

std::string Seal(const uint8_t* d, size_t n) {
  std::string p(reinterpret_cast<const char*>(d), n);
  uint64_t crc = base::Crc64(0, p.data(), p.size());
  for (int i = 0; i < 8; i++) p.push_back(static_cast<char>((crc >> (8 * i)) & 0xff));
  return p;
}

void RunDump(const uint8_t* d, size_t n) {
  persist::Value v;
  if (persist::DecodeDump(Seal(d, n), &v) != persist::DumpStatus::kOk) return;
  db::Obj* o = persist::FromValue("k", v, -1);
  FUZZ_CHECK(o != nullptr);
  persist::Value back;
  FUZZ_CHECK(persist::DecodeDump(persist::EncodeDump(persist::ToValue(o)), &back) ==
             persist::DumpStatus::kOk);
  FUZZ_CHECK(back.kind == v.kind);
  if (v.kind != persist::Kind::kString) FUZZ_CHECK(Count(back) <= Count(v));
  db::FreeObj(o);
}

// Payloads written by redis-server 7.0.15 (compact encodings included), without their CRC.
const char* kDumpHex[] = {
    "00c12efb0a00",
    "000b31323334353637383930310a00",
    "00c30a405002616261e042010161620a00",
    "1024240000000600846e616d65058676616c6b65790783766572040801836e656704ded402ff0a00",
    "120402c316408307830000000200bc78e03200023dbc79e03200013dff02c311404707470000000200bc7ae0"
    "3200033d0101ff01c31e4834017777e0ff00e0ff00e0ff00e0ff00e0ff00e0ff00e0ff00e0ef00017777020a"
    "0a0000000100dffb02ff0a00",
    "0b140400000003000000feffffff05000000701101000a00",
    "02020470656172056170706c650a00",
    "111d1d0000000600816202dffe0281610283312e350481630283696e6604ff0a00",
    "0502026d31000000000000d03f026d329c7500883ce437fe0a00",
    "0402026632c0160266310276310a00",
    // Streams (type 19): three entries in one node with a group, a consumer with two pending
    // entries and one without; an empty stream whose only entry was trimmed.
    "13011000000000000000010000000000000001c33a3f113f0000001900030100010201816102816202400900"
    "002001050101817802052016400a201c0079200c400a02dfff02201a06630203010601ff0302000101000003"
    "01016701020202000000000000000100000000000000011d7ed933a201000001000000000000000100000000"
    "000000021d7ed933a2010000010205616c6963651d7ed933a201000002000000000000000100000000000000"
    "010000000000000001000000000000000203626f62247ed933a2010000000a00",
    "13000005050000000001000a00",
};

std::vector<std::string> DumpSeeds() {
  std::vector<std::string> out;
  for (const char* h : kDumpHex) out.push_back(Unhex(h));
  // Old encodings: a ziplist hash (13), ziplist zset (12), ziplist list (10).
  out.push_back(Unhex("0d13130000000e0000000200000266310402763" "1ff0a00"));
  return out;
}

fuzz::Registrar dump_target({"dump", RunDump, DumpSeeds,
                             {std::string("\x0a\x00", 2), std::string("\x0b\x00", 2),
                              std::string(1, '\xff'), std::string(1, '\xc0'),
                              std::string(1, '\xc3'), std::string(1, '\x80')},
                             16384});

// ---------------------------------------------------------------------------------------------
// snapshot: whole RDB files (as loaded at start or received from a primary), checksum off.
// Property: what loads saves again, and the saved file loads with the same number of keys.

void RunSnapshot(const uint8_t* d, size_t n) {
  persist::LoadOptions opts;
  opts.verify_checksum = false;
  opts.skip_expired = false;
  opts.num_dbs = 2;
  db::Db d0(0, false), d1(1, false);
  std::vector<db::Db*> dbs{&d0, &d1};
  persist::LoadResult r = persist::LoadSnapshot(d, n, opts, dbs);
  // The same bytes in pieces, as a replica parses them while they arrive: the same outcome.
  db::Db p0(0, false), p1(1, false);
  persist::SnapshotLoader loader(opts, {&p0, &p1}, false);
  std::string buf;
  size_t fed = 0;
  uint32_t x = static_cast<uint32_t>(n) * 2654435761u;
  persist::SnapshotParser::Status st;
  do {
    x = x * 1103515245u + 12345u;
    size_t k = std::min<size_t>(1 + (x >> 16) % 300, n - fed);
    buf.append(reinterpret_cast<const char*>(d) + fed, k);
    fed += k;
    size_t consumed = 0;
    st = loader.Feed(reinterpret_cast<const uint8_t*>(buf.data()), buf.size(), fed == n, &consumed);
    FUZZ_CHECK(consumed <= buf.size());
    buf.erase(0, consumed);
  } while (st == persist::SnapshotParser::Status::kMore && fed < n);
  FUZZ_CHECK(st != persist::SnapshotParser::Status::kMore);
  FUZZ_CHECK(loader.result().ok == r.ok);
  FUZZ_CHECK(loader.result().error == r.error);
  FUZZ_CHECK(loader.result().keys_loaded == r.keys_loaded);
  if (!r.ok) return;
  std::string out;
  persist::SnapshotWriter w(&out, persist::SaveOptions{});
  FUZZ_CHECK(persist::WriteSnapshot(w, dbs, 0, 0));
  db::Db e0(0, false), e1(1, false);
  std::vector<db::Db*> again{&e0, &e1};
  opts.verify_checksum = true;
  persist::LoadResult r2 = persist::LoadSnapshot(reinterpret_cast<const uint8_t*>(out.data()),
                                                 out.size(), opts, again);
  FUZZ_CHECK(r2.ok);
  FUZZ_CHECK(r2.keys_loaded == r.keys_loaded);
}

std::vector<std::string> SnapshotSeeds() {
  std::vector<std::string> out;
  db::Db d0(0, false);
  d0.Add(db::NewString("s", "hello world"));
  d0.Add(db::NewInt("i", 12345, 1800000000000LL));
  d0.Add(db::NewString("long", std::string(100, 'x')));  // LZF-compressed
  for (const char* h : kDumpHex) {
    // Each DUMP fixture's type + value become a key of the snapshot.
    persist::Value v;
    std::string p = Seal(reinterpret_cast<const uint8_t*>(Unhex(h).data()), Unhex(h).size());
    if (persist::DecodeDump(p, &v) == persist::DumpStatus::kOk)
      d0.Add(persist::FromValue("k" + std::to_string(out.size() + d0.Size()), v, -1));
  }
  db::Db d1(1, false);
  d1.Add(db::NewString("other", "db"));
  std::vector<db::Db*> dbs{&d0, &d1};
  std::string s;
  persist::SnapshotWriter w(&s, persist::SaveOptions{});
  persist::WriteSnapshot(w, dbs, 1700000000, 1000);
  out.push_back(s);
  // The same contents as the compact encodings Valkey writes: each fixture value on its own.
  for (const char* h : kDumpHex) {
    std::string body = Unhex(h);
    body.resize(body.size() - 2);  // drop the DUMP version
    std::string f = "REDIS0011";
    f += "\xfa\x09redis-ver\x057.0.15";
    f += "\xfe";
    f.push_back('\0');
    f += "\xfb";
    f.push_back('\x01');
    f.push_back('\0');
    f.push_back(body[0]);
    f += "\x01k";
    f += body.substr(1);
    f += "\xff";
    f += std::string(8, '\0');
    out.push_back(f);
  }
  return out;
}

fuzz::Registrar snapshot_target({"snapshot", RunSnapshot, SnapshotSeeds,
                                 {"REDIS0011", "REDIS0010", std::string(1, '\xfa'),
                                  std::string(1, '\xfe'), std::string(1, '\xfc'),
                                  std::string(1, '\xfd'), std::string(1, '\xf8'),
                                  std::string(1, '\xf9'), std::string(1, '\xff'),
                                  std::string(1, '\xf5'), std::string(1, '\xf7')},
                                 65536});

// ---------------------------------------------------------------------------------------------
// bus: cluster bus messages from a peer, as the link reader frames and decodes them.
// Property: an accepted message re-encodes, and that encoding decodes to the same encoding.

void RunBus(const uint8_t* d, size_t n) {
  size_t off = 0;
  while (off < n) {
    cluster::Frame f = cluster::FrameNext(d + off, n - off, 1 << 20);
    if (f.state != cluster::FrameState::kComplete) return;
    FUZZ_CHECK(f.length > 0 && f.length <= n - off);
    cluster::Message m;
    cluster::DecodeStatus st = cluster::Decode(d + off, f.length, &m);
    cluster::DispositionOf(st);
    if (st == cluster::DecodeStatus::kOk) {
      std::vector<uint8_t> enc = cluster::Encode(m);
      FUZZ_CHECK(!enc.empty());
      cluster::Message m2;
      FUZZ_CHECK(cluster::Decode(enc.data(), enc.size(), &m2) == cluster::DecodeStatus::kOk);
      FUZZ_CHECK(cluster::Encode(m2) == enc);
      cluster::FormatNodeFlags(m.header.flags);
      cluster::IpToString(m.header.myip);
    }
    off += f.length;
  }
}

cluster::NodeName Name(const char* s) {
  cluster::NodeName n{};
  cluster::NodeNameFromString(s, &n);
  return n;
}

std::vector<std::string> BusSeeds() {
  std::vector<std::string> out;
  auto add = [&](const cluster::Message& m) {
    auto b = cluster::Encode(m);
    out.emplace_back(b.begin(), b.end());
  };
  cluster::Message base;
  base.header.port = 7000;
  base.header.cport = 17000;
  base.header.current_epoch = 7;
  base.header.config_epoch = 3;
  base.header.sender = Name("0756a81b1baf8a066fa0309bfb7d8b6820a479d3");
  cluster::IpFromString("127.0.0.1", &base.header.myip);
  for (int s : {0, 1, 5460, 16383}) cluster::SlotSet(&base.header.myslots, s);
  base.header.flags = cluster::kNodePrimary;
  for (uint16_t type : {0, 1, 2}) {  // PING, PONG, MEET with gossip and every extension
    cluster::Message m = base;
    m.header.type = type;
    cluster::GossipEntry g;
    g.name = Name("69e5a2966072e58457515e8143a4e508823c8f8f");
    g.port = 7001;
    g.cport = 17001;
    g.flags = cluster::kNodeReplica;
    cluster::IpFromString("10.0.0.2", &g.ip);
    m.ping.gossip.push_back(g);
    cluster::PingExt e;
    e.type = cluster::kExtHostname;
    e.text = "host.example";
    m.ping.extensions.push_back(e);
    e.type = cluster::kExtHumanNodename;
    e.text = "node-one";
    m.ping.extensions.push_back(e);
    cluster::PingExt f;
    f.type = cluster::kExtForgottenNode;
    f.name = g.name;
    f.ttl = 60;
    m.ping.extensions.push_back(f);
    cluster::PingExt sh;
    sh.type = cluster::kExtShardId;
    sh.name = Name("182eb8bfba193ad397d416842add4dfee271e331");
    m.ping.extensions.push_back(sh);
    add(m);
  }
  cluster::Message fail = base;
  fail.header.type = cluster::kTypeFail;
  fail.fail.name = Name("69e5a2966072e58457515e8143a4e508823c8f8f");
  add(fail);
  cluster::Message pub = base;
  pub.header.type = cluster::kTypePublish;
  pub.publish.channel = "news";
  pub.publish.message = "hello";
  add(pub);
  pub.header.light = true;
  add(pub);
  cluster::Message upd = base;
  upd.header.type = cluster::kTypeUpdate;
  upd.update.config_epoch = 9;
  upd.update.name = base.header.sender;
  cluster::SlotSet(&upd.update.slots, 42);
  add(upd);
  for (uint16_t type : {5, 6, 8}) {  // FAILOVER_AUTH_REQUEST / ACK, MFSTART: header only
    cluster::Message m = base;
    m.header.type = type;
    add(m);
  }
  cluster::Message mod = base;
  mod.header.type = cluster::kTypeModule;
  mod.module.payload = "payload";
  add(mod);
  std::string two = out[0] + out[3];  // two messages back to back
  out.push_back(two);
  return out;
}

fuzz::Registrar bus_target({"bus", RunBus, BusSeeds,
                            {"RCmb", std::string("\x00\x01", 2), std::string(8, '\0'),
                             std::string(40, 'a')},
                            65536});

// ---------------------------------------------------------------------------------------------
// nodes_conf: the cluster configuration file read at start. Property: what parses formats back
// to a file that parses again to the same text.

void RunNodesConf(const uint8_t* d, size_t n) {
  cluster::State st;
  std::string err;
  std::string_view text(reinterpret_cast<const char*>(d), n);
  if (!cluster::ParseNodesConf(text, &st, 1000, false, &err)) {
    FUZZ_CHECK(!err.empty());
    return;
  }
  std::string again = cluster::FormatNodesConf(st);
  cluster::State st2;
  std::string err2;
  FUZZ_CHECK(cluster::ParseNodesConf(again, &st2, 1000, false, &err2));
  FUZZ_CHECK(cluster::FormatNodesConf(st2) == again);
}

std::vector<std::string> NodesConfSeeds() {
  return {
      "0756a81b1baf8a066fa0309bfb7d8b6820a479d3 "
      "127.0.0.1:26101@26151,vk1.example,tls-port=0,nodename=vk-one,shard-id="
      "182eb8bfba193ad397d416842add4dfee271e331 myself,master - 0 0 7 connected 0-5461 7000 "
      "[100->-69e5a2966072e58457515e8143a4e508823c8f8f] "
      "[6000-<-69e5a2966072e58457515e8143a4e508823c8f8f]\n"
      "69e5a2966072e58457515e8143a4e508823c8f8f "
      "127.0.0.1:26102@26152,,client-ipv6=fe80::1,client-ipv4=10.9.8.7,tls-port=0,shard-id="
      "4374d115f90c5f61e070618a5915dadb2340ec9d master - 0 1796129001000 2 connected 5462-6999 "
      "7001-10922\n"
      "27dd442f00d424cd326d54ec7db74e8f46245cca 127.0.0.1:26105@26155,,tls-port=0 "
      "slave,fail 69e5a2966072e58457515e8143a4e508823c8f8f 1796128998536 1796128997000 3 "
      "connected\n"
      "vars currentEpoch 7 lastVoteEpoch 3\n",
      "d4632eea7be4c7dcb14241c1d7697dd1bf93153b 127.0.0.1:26121@26171,rd1.example "
      "myself,master - 0 1796129001000 1 connected 0-16383\n"
      "vars currentEpoch 1 lastVoteEpoch 0\n",
  };
}

fuzz::Registrar nodes_conf_target({"nodes_conf", RunNodesConf, NodesConfSeeds,
                                   {" myself,", "master", "slave", "fail?", "noaddr",
                                    "handshake", "nofailover", " - ", "connected",
                                    "disconnected", "->-", "-<-", "vars ", "currentEpoch",
                                    "shard-id=", "@", ":", ",", "\n"},
                                   16384});

// ---------------------------------------------------------------------------------------------
// config: config file lines (as valkey.conf or `--name value` on the command line give them).
// Property: no crash; a refused file says why. Lines that reach the file system (include, dir,
// and the files written at start) are skipped: the driver must not chdir or read devices.

void RunConfig(const uint8_t* d, size_t n) {
  static bool init = [] {
    server::BuildCommandTable();
    server::SetConfigErrorStream(fopen("/dev/null", "w"));
    return true;
  }();
  (void)init;
  std::vector<std::string> lines;
  std::string cur;
  auto flush = [&] {
    std::string low;
    size_t i = 0;
    while (i < cur.size() && isspace(static_cast<unsigned char>(cur[i]))) i++;
    for (size_t j = i; j < cur.size() && j < i + 16; j++)
      low.push_back(static_cast<char>(tolower(static_cast<unsigned char>(cur[j]))));
    bool fs = low.rfind("include", 0) == 0 || low.rfind("dir", 0) == 0 ||
              low.rfind("\"dir", 0) == 0 || low.rfind("'dir", 0) == 0 ||
              low.rfind("\"include", 0) == 0 || low.rfind("'include", 0) == 0;
    if (!fs) lines.push_back(cur);
    cur.clear();
  };
  for (size_t i = 0; i < n; i++) {
    if (d[i] == '\n')
      flush();
    else
      cur.push_back(static_cast<char>(d[i]));
  }
  flush();
  server::LoadConfigLines(lines);
}

std::vector<std::string> ConfigSeeds() {
  return {"port 6379\nbind 127.0.0.1 -::1\nprotected-mode yes\nsave 900 1\nsave 300 10\n"
          "maxmemory 100mb\nmaxmemory-policy noeviction\nappendonly no\n",
          "cluster-enabled yes\ncluster-node-timeout 5000\ncluster-config-file nodes.conf\n"
          "hash-max-listpack-entries 128\nlist-max-listpack-size -2\n",
          "rename-command FLUSHALL \"\"\nrename-command CONFIG cfg\nrequirepass \"a b\\x41\"\n"
          "client-output-buffer-limit replica 256mb 64mb 60\nhz 100\nloglevel notice\n",
          "save\nsave \"\"\nenable-debug-assert yes\nreplicaof 127.0.0.1 6380\n"
          "notify-keyspace-events KEA\nhash-seed 0123456789abcdef0123456789abcdef\n"};
}

fuzz::Registrar config_target({"config", RunConfig, ConfigSeeds,
                               {"yes", "no", "mb", "gb", "\"", "'", "\\x", " ", "-1",
                                "cluster-enabled", "save", "bind", "port", "rename-command",
                                "maxmemory", "appendonly", "client-output-buffer-limit",
                                "replicaof", "hash-seed", "databases"},
                               4096});

// ---------------------------------------------------------------------------------------------
// aof: an AOF file and a manifest, as the node reads them at start. The input's first line is
// taken as a manifest, the rest as commands. Properties: a manifest that parses formats to
// text that parses to the same text; each command read encodes to bytes that read back as the
// same command, and a verdict's offset lies within the input; valkey-check-aof's verdict
// (tools::ScanAof) keeps a valid part within the input, and that part, cut as --fix or
// --truncate-to-timestamp cuts it, is valid with the same end and line (so a cut leaves a file
// the next check accepts).

void RunAof(const uint8_t* d, size_t n) {
  std::string_view all(reinterpret_cast<const char*>(d), n);
  size_t nl = all.find('\n');
  std::string_view manifest = nl == std::string_view::npos ? all : all.substr(0, nl + 1);
  persist::AofManifest m, m2;
  std::string err;
  if (persist::ParseAofManifest(manifest, &m, &err)) {
    std::string text = persist::FormatAofManifest(m);
    // Quoting may lengthen a name past the servers' 1024-byte line limit; real names (from
    // appendfilename) never come near it.
    bool fits = true;
    for (size_t at = 0, e; (e = text.find('\n', at)) != std::string::npos; at = e + 1)
      fits &= e - at + 1 <= 1024;
    // A manifest of comments names no file: it formats to nothing (which the servers read as
    // empty); the node never writes one (a base or an incr file always exists first).
    bool names_files = m.has_base || !m.incr.empty() || !m.history.empty();
    if (fits && names_files) {
      FUZZ_CHECK(persist::ParseAofManifest(text, &m2, &err));
      FUZZ_CHECK(persist::FormatAofManifest(m2) == text);
    }
  } else {
    FUZZ_CHECK(!err.empty());
  }
  size_t start = nl == std::string_view::npos ? n : nl + 1;
  // A cut at a #TS later than 1700000000 (the seeds' annotation is not later).
  for (int64_t ts : {int64_t{0}, int64_t{1700000000}}) {
    tools::AofScan sc = tools::ScanAof(d, n, start, ts);
    FUZZ_CHECK(sc.ok_up_to >= start && sc.ok_up_to <= n && sc.line >= 1);
    if (sc.verdict == tools::AofScan::kValid) FUZZ_CHECK(sc.ok_up_to == n);
    if (sc.verdict == tools::AofScan::kInvalid) FUZZ_CHECK(sc.error_at <= n && !sc.error.empty());
    if (sc.verdict != tools::AofScan::kBadTimestamp) {
      tools::AofScan again = tools::ScanAof(d, sc.ok_up_to, start, ts);
      FUZZ_CHECK(again.verdict == tools::AofScan::kValid);
      FUZZ_CHECK(again.ok_up_to == sc.ok_up_to && again.line == sc.line);
    }
  }
  persist::AofReader r(d, n, start);
  while (true) {
    size_t before = r.pos();
    persist::AofReader::Status st = r.Next();
    if (st == persist::AofReader::kBadFormat) {
      FUZZ_CHECK(r.error_offset() >= before && r.error_offset() < n);
      return;
    }
    if (st != persist::AofReader::kCommand) {
      FUZZ_CHECK(r.pos() <= n);
      return;
    }
    FUZZ_CHECK(!r.argv().empty() && r.pos() > before && r.pos() <= n);
    // What was read encodes to a command that reads back the same.
    std::string again;
    net::AppendCommand(&again, r.argv());
    persist::AofReader r2(reinterpret_cast<const uint8_t*>(again.data()), again.size());
    FUZZ_CHECK(r2.Next() == persist::AofReader::kCommand);
    FUZZ_CHECK(r2.argv() == r.argv());
    FUZZ_CHECK(r2.Next() == persist::AofReader::kEnd);
  }
}

std::vector<std::string> AofSeeds() {
  std::string cmds;
  net::AppendCommand(&cmds, {"SELECT", "0"});
  net::AppendCommand(&cmds, {"SET", "k", "v"});
  net::AppendCommand(&cmds, {"MULTI"});
  net::AppendCommand(&cmds, {"RPUSH", "l", "a", "b"});
  net::AppendCommand(&cmds, {"EXEC"});
  return {"file appendonly.aof.1.base.rdb seq 1 type b\n#TS:1700000000\r\n" + cmds,
          "file appendonly.aof.2.incr.aof seq 2 type i\n" + cmds,
          "file \"a b\" seq 3 type h extra 1\n" + cmds.substr(0, cmds.size() - 3)};
}

fuzz::Registrar aof_target({"aof", RunAof, AofSeeds,
                            {"file ", " seq ", " type ", "b", "h", "i", "#TS:", "*", "$",
                             "\r\n", "\""},
                            8192});

// ---------------------------------------------------------------------------------------------
// aof_load: the node's own AOF loading, run in-process on the input as an incr file: the path
// of start-up and DEBUG LOADAOF (server::AofDebugReload: empty the databases, then
// AofLoadAtStartup reads the manifest and replays each file's commands through Call with the
// client that answers no one). The first byte picks the base file: none, a small snapshot
// preamble, a base of commands, or the snapshot preamble with the rest of the input as its
// AOF tail (then no incr file). Properties: the load succeeds or fails with an error (no
// abort); no blocked client remains (the loader's client is gone); a load that succeeded, repeated on the same files (a cut-short tail was truncated
// by the first), gives the same key set with the same types in every db.
//
// The server state is built once per process as server::Main builds it (command table, config
// defaults, databases, value types, keyspace hooks), with enable-debug-command yes and no save
// points; the files live in a directory of their own. Inputs holding a command that would
// leave the process's sandbox (fork, exit, network, files outside that directory, a sleep, a
// config change) are skipped: their handlers are not what this target is for.

std::string g_aof_dir;

bool AofLoadInit() {
  base::InitFastClock();
  base::SetLogFile("/dev/null");
  server::SetConfigErrorStream(fopen("/dev/null", "w"));
  server::BuildCommandTable();
  server::LoadConfig("", {"--enable-debug-command", "yes", "--save", "", "--appendonly", "no"});
  server::RefreshDerivedConfig();
  char tmpl[] = "/tmp/valkey-fuzz-aof.XXXXXX";
  if (!mkdtemp(tmpl)) abort();
  g_aof_dir = tmpl;
  atexit([] { std::filesystem::remove_all(g_aof_dir); });  // a crash leaves it for a look
  server::cfg.appenddirname = g_aof_dir;  // absolute: the loader's paths are appenddirname/name
  server::cfg.dbfilename = g_aof_dir + "/dump.rdb";  // SAVE and DEBUG RELOAD write here
  server::InitDataState();
  static net::EventLoop loop(256);  // never run: commands that arm timers find one
  server::g.loop = &loop;
  return true;
}

// A snapshot of two dbs with a string (one with a TTL), a list and a hash, as an AOF base.
std::string AofRdbBase() {
  db::Db d0(0, false), d1(1, false);
  d0.Add(db::NewString("base:s", "hello"));
  d0.Add(db::NewInt("base:i", 7, 4102444800000LL));
  persist::Value lv;
  lv.kind = persist::Kind::kList;
  lv.elems = {"a", "b", "c"};
  d0.Add(persist::FromValue("base:l", lv, -1));
  persist::Value hv;
  hv.kind = persist::Kind::kHash;
  hv.pairs = {{"f", "v"}, {"g", "w"}};
  d1.Add(persist::FromValue("base:h", hv, -1));
  std::vector<db::Db*> dbs{&d0, &d1};
  std::string s;
  persist::SaveOptions so;
  so.aof_base = true;
  persist::SnapshotWriter w(&s, so);
  persist::WriteSnapshot(w, dbs, 1700000000, 1000);
  return s;
}

std::string AofCmdBase() {
  std::string s = "#TS:1700000000\r\n";
  net::AppendCommand(&s, {"SELECT", "0"});
  net::AppendCommand(&s, {"SET", "base:s", "hello"});
  net::AppendCommand(&s, {"RPUSH", "base:l", "a", "b", "c"});
  net::AppendCommand(&s, {"PEXPIREAT", "base:l", "4102444800000"});
  net::AppendCommand(&s, {"SELECT", "2"});
  net::AppendCommand(&s, {"SADD", "base:set", "x", "y"});
  return s;
}

// Commands whose handlers leave the sandbox or stop the process (see above).
bool AofLoadSkips(std::string_view text) {
  static const char* const kSkip[] = {
      "shutdown", "replicaof", "slaveof", "sync", "psync", "migrate", "failover", "bgsave",
      "bgrewriteaof", "config", "acl", "cluster", "module", "readonly", "readwrite"};
  persist::AofReader r(reinterpret_cast<const uint8_t*>(text.data()), text.size());
  while (r.Next() == persist::AofReader::kCommand) {
    std::string name = base::ToLower(r.argv()[0]);
    for (const char* k : kSkip)
      if (name == k) return true;
    if (name == "debug" && r.argv().size() >= 2) {
      std::string sub = base::ToLower(r.argv()[1]);
      if (sub == "sleep" || sub == "segfault" || sub == "panic" || sub == "restart" ||
          sub == "crash-and-recover")
        return true;
    }
  }
  return false;
}

bool WriteFileAt(const std::string& path, std::string_view data) {
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return false;
  bool ok = write(fd, data.data(), data.size()) == static_cast<ssize_t>(data.size());
  close(fd);
  return ok;
}

using Dataset = std::vector<std::vector<std::pair<std::string, int>>>;

Dataset CurrentDataset() {
  Dataset out(server::NumDbs());
  for (int i = 0; i < server::NumDbs(); i++) {
    server::GetDb(i)->ForEach(
        [&](db::Obj* o) { out[i].emplace_back(std::string(o->key()), static_cast<int>(o->type())); });
    std::sort(out[i].begin(), out[i].end());
    FUZZ_CHECK(out[i].size() == server::GetDb(i)->Size());
  }
  return out;
}

void RunAofLoad(const uint8_t* d, size_t n) {
  static bool init = AofLoadInit();
  static const std::string rdb_base = AofRdbBase(), cmd_base = AofCmdBase();
  (void)init;
  if (n == 0) return;
  int mode = d[0] % 4;
  std::string_view body(reinterpret_cast<const char*>(d) + 1, n - 1);
  if (AofLoadSkips(body)) return;
  std::string base_name = server::cfg.appendfilename + ".1.base." + (mode == 2 ? "aof" : "rdb");
  std::string incr_name = server::cfg.appendfilename + ".1.incr.aof";
  std::string manifest;
  if (mode == 1 || mode == 2 || mode == 3) {
    std::string base = mode == 2 ? cmd_base : rdb_base;
    if (mode == 3) base.append(body);
    FUZZ_CHECK(WriteFileAt(g_aof_dir + "/" + base_name, base));
    manifest += "file " + base_name + " seq 1 type b\n";
  }
  if (mode != 3) {
    FUZZ_CHECK(WriteFileAt(g_aof_dir + "/" + incr_name, body));
    manifest += "file " + incr_name + " seq 1 type i\n";
  }
  FUZZ_CHECK(WriteFileAt(g_aof_dir + "/" + server::cfg.appendfilename + ".manifest", manifest));
  // DEBUG LOADAOF's own path: the databases emptied, then the start-up load.
  // The loader's client is gone when the load returns: nothing may still hold it (a BLPOP
  // left it blocked, and the next push served a dead client).
  bool ok = server::AofDebugReload();
  FUZZ_CHECK(server::BlockedClientCount() == 0);
  if (!ok) return;  // refused, with its reason logged
  Dataset first = CurrentDataset();
  FUZZ_CHECK(server::AofDebugReload());
  FUZZ_CHECK(server::BlockedClientCount() == 0);
  FUZZ_CHECK(CurrentDataset() == first);
}

std::vector<std::string> AofLoadSeeds() {
  auto cmds = [](std::initializer_list<std::vector<std::string_view>> list) {
    std::string s;
    for (auto& c : list) net::AppendCommand(&s, c);
    return s;
  };
  std::string plain = cmds({{"SELECT", "0"},
                            {"SET", "k", "v"},
                            {"SET", "t", "1", "EX", "1000"},
                            {"EXPIRE", "k", "500"},
                            {"PEXPIREAT", "gone", "1"},
                            {"INCRBY", "t", "5"},
                            {"RPUSH", "l", "a", "b", "c"},
                            {"LPOP", "l"},
                            {"LINSERT", "l", "BEFORE", "c", "x"},
                            {"DEL", "t"},
                            {"SELECT", "3"},
                            {"HSET", "h", "f", "v"},
                            {"ZADD", "z", "1", "m"},
                            {"SADD", "s", "a", "b"}});
  std::string tx = cmds({{"SELECT", "1"},
                         {"MULTI"},
                         {"SET", "a", "1"},
                         {"LPUSH", "q", "x", "y"},
                         {"EXPIRE", "a", "100"},
                         {"EXEC"},
                         {"MULTI"},
                         {"DEL", "a"},
                         {"RPOPLPUSH", "q", "q2"},
                         {"EXEC"},
                         {"MULTI"},
                         {"SET", "cut", "off"}});  // an unfinished transaction at the end
  std::string reload = cmds({{"SET", "before", "1"},
                             {"DEBUG", "LOADAOF"},
                             {"SET", "after", "2"},
                             {"MULTI"},
                             {"DEBUG", "LOADAOF"},
                             {"EXEC"}});
  std::string blocking = cmds({{"BLPOP", "nolist", "0"},
                               {"XADD", "st", "1-1", "f", "v"},
                               {"SWAPDB", "0", "1"},
                               {"FLUSHDB"},
                               {"SET", "x", "y", "PXAT", "1"}});
  std::vector<std::string> out;
  for (char mode : {'\0', '\1', '\2', '\3'})
    for (const std::string* s : {&plain, &tx, &reload, &blocking}) out.push_back(mode + *s);
  return out;
}

fuzz::Registrar aof_load_target({"aof_load", RunAofLoad, AofLoadSeeds,
                                 {"*", "$", "\r\n", "#TS:", "MULTI", "EXEC", "SELECT", "SET",
                                  "EXPIRE", "DEL", "RPUSH", "LPOP", "DEBUG", "LOADAOF",
                                  "RELOAD", "FLUSHALL", "SWAPDB", "BLPOP", "XADD", "ZADD",
                                  "HSET", "SADD", "PX", "EX"},
                                 8192});

// ---------------------------------------------------------------------------------------------
// hll: a HyperLogLog value (the target puts "HYLL" in front, so every input reaches the
// encoding byte and the body). Properties: the sparse walkers agree (ToDense succeeds exactly
// when MergeInto does, with the same registers and the same estimate); register updates on a
// well-formed value keep it well-formed and equal to a plain register array updated alike
// (whether it stays sparse or is promoted); on any other value they stay within the value.
// Well-formed: dense, or sparse opcodes covering exactly 16384 registers, the last one
// complete. (Opcodes after the 16384th register, which the walkers ignore, may merge with the
// last run in an update, and a cut XZERO at the end loses a byte when split: Valkey does both.)

bool HllSparseWellFormed(const std::string& v) {
  size_t i = db::hll::kHeaderSize;
  long regs = 0;
  while (i < v.size()) {
    uint8_t b = static_cast<uint8_t>(v[i]);
    if ((b & 0xc0) == 0x40) {
      if (i + 1 >= v.size()) return false;
      regs += (((b & 0x3f) << 8) | static_cast<uint8_t>(v[i + 1])) + 1;
      i += 2;
    } else {
      regs += (b & 0x80) ? (b & 3) + 1 : (b & 0x3f) + 1;
      i++;
    }
  }
  return regs == db::hll::kRegisters;
}

void RunHll(const uint8_t* d, size_t n) {
  namespace hll = db::hll;
  std::string v = "HYLL" + std::string(reinterpret_cast<const char*>(d), n);
  if (!hll::LooksValid(v)) return;
  std::vector<uint8_t> model(hll::kRegisters);
  bool merged = hll::MergeInto(model.data(), v);
  std::string dense = v;
  bool converted = hll::ToDense(&dense);
  FUZZ_CHECK(merged == converted);
  auto regs_of = [](const std::string& dv) {
    std::vector<uint8_t> r(hll::kRegisters);
    auto* p = reinterpret_cast<const uint8_t*>(dv.data()) + hll::kHeaderSize;
    for (int i = 0; i < hll::kRegisters; i++) r[i] = hll::DenseGet(p, i);
    return r;
  };
  bool invalid = false;
  hll::Count(v, &invalid);
  FUZZ_CHECK(!invalid || hll::Encoding(v) == hll::kSparse);
  const bool well_formed = hll::Encoding(v) == hll::kDense || HllSparseWellFormed(v);
  FUZZ_CHECK(!well_formed || (converted && !invalid));
  if (converted) {
    FUZZ_CHECK(dense.size() == hll::kDenseSize);
    FUZZ_CHECK(regs_of(dense) == model);
    FUZZ_CHECK(hll::Count(dense, &invalid) == hll::CountRaw(model.data()));
  }
  // Updates at positions and values drawn from the input.
  uint32_t x = static_cast<uint32_t>(n) * 2654435761u + (n ? d[0] : 0);
  size_t max_bytes = 16 + (n ? d[n - 1] : 0) * 4;
  for (int op = 0; op < 24; op++) {
    x = x * 1103515245u + 12345u;
    int index = static_cast<int>((x >> 8) % hll::kRegisters);
    if (op % 3 == 0 && n) index = (d[op % n] * 64 + op) % hll::kRegisters;  // clustered
    uint8_t count = static_cast<uint8_t>(1 + (x >> 24) % 40);
    int r = hll::SetRegister(&v, index, count, max_bytes);
    FUZZ_CHECK(v.size() >= hll::kHeaderSize);
    if (!well_formed) continue;
    FUZZ_CHECK(r == (count > model[index] ? 1 : 0));
    if (count > model[index]) model[index] = count;
    std::string check = v;
    FUZZ_CHECK(hll::ToDense(&check));
    FUZZ_CHECK(regs_of(check) == model);
    if (hll::Encoding(v) == hll::kSparse) {
      FUZZ_CHECK(HllSparseWellFormed(v));
      FUZZ_CHECK(v.size() <= std::max(max_bytes, n + 4));
    }
  }
}

std::vector<std::string> HllSeeds() {
  std::string sparse = db::hll::NewSparse();
  for (const char* e : {"a", "b", "c", "d"}) db::hll::Add(&sparse, e, 3000);
  std::string dense = sparse;
  db::hll::ToDense(&dense);
  return {sparse.substr(4), dense.substr(4), Unhex("010000000000000000000080407f7f"),
          Unhex("0100000000000000000000807fff8000"), Unhex("0100000000000000000000807e")};
}

fuzz::Registrar hll_target({"hll", RunHll, HllSeeds,
                            {std::string(1, '\x01'), std::string(1, '\x7f'),
                             std::string("\x7f\xff", 2), std::string(1, '\x80'),
                             std::string(1, '\xfc')},
                            16384});

// ---------------------------------------------------------------------------------------------
// selftest: a planted heap overflow behind four nested byte comparisons. run.sh checks that the
// driver finds it from an empty corpus, reports it and keeps the input (a harness that cannot
// find this would pass every real target too).

void RunSelftest(const uint8_t* d, size_t n) {
  if (n >= 4 && d[0] == 'b') {
    if (d[1] == 'u') {
      if (d[2] == 'g') {
        if (d[3] == '!') {
          char* p = static_cast<char*>(malloc(4));
          size_t len = n + 1;
          asm volatile("" : "+r"(len));  // a length the compiler cannot see (no warning)
          memset(p, 'x', len);           // out of bounds for any n >= 4
          asm volatile("" : : "r"(p) : "memory");  // keep the allocation and the write
          free(p);
        }
      }
    }
  }
}

std::vector<std::string> NoSeeds() { return {}; }

fuzz::Registrar selftest_target({"selftest", RunSelftest, NoSeeds, {}, 64, true});

}  // namespace
