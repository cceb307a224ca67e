// Server commands: INFO, CONFIG, COMMAND, DEBUG, TIME, LASTSAVE, SHUTDOWN.
#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>

#include "base/glob.h"
#include "base/log.h"
#include "base/siphash.h"
#include "base/time.h"
#include "base/util.h"
#include "commands/common.h"
#include "commands/debug_htstats.h"
#include "db/stream.h"
#include "ds/hashtable.h"
#include "ds/listpack.h"
#include "ds/pack.h"
#include "ds/quicklist.h"
#include "persist/object_codec.h"
#include "persist/value_codec.h"
#include "server/aof.h"
#include "server/cluster_hooks.h"
#include "server/command_docs.h"
#include "server/command_tips.h"
#include "server/config.h"
#include "server/crash_report.h"
#include "server/dispatch.h"
#include "server/info.h"
#include "server/loading.h"
#include "server/memory_report.h"
#include "server/persistence.h"
#include "server/repl_hooks.h"
#include "server/shutdown.h"

namespace cmd {
namespace {
using namespace server;

void InfoCommand(Client* c) {
  std::vector<std::string> secs;
  for (size_t i = 1; i < c->argv.size(); i++) secs.push_back(base::ToLower(c->argv[i]));
  c->R().Verbatim(GenInfo(secs));
}

// ---- CONFIG ----
void ConfigGetCmd(Client* c) {
  std::vector<std::string> pats;
  for (size_t i = 2; i < c->argv.size(); i++) pats.emplace_back(c->argv[i]);
  std::vector<std::pair<std::string, std::string>> kv;
  ConfigGet(pats, &kv);
  auto r = c->R();
  r.MapLen(static_cast<int64_t>(kv.size()));
  for (auto& [k, v] : kv) {
    r.Bulk(k);
    r.Bulk(v);
  }
}

void ConfigSetCmd(Client* c) {
  if ((c->argv.size() - 2) % 2 != 0) return c->R().Error(kErrSyntax);
  std::vector<std::pair<std::string, std::string>> kv;
  for (size_t i = 2; i + 1 < c->argv.size(); i += 2)
    kv.emplace_back(std::string(c->argv[i]), std::string(c->argv[i + 1]));
  std::string err = ConfigSet(kv, IsLocalClient(c));
  if (!err.empty()) return c->R().Error(err);
  RefreshDerivedConfig();
  c->R().Ok();
}

void ConfigResetStatCmd(Client* c) {
  ResetStats();
  c->R().Ok();
}

void ConfigRewriteCmd(Client* c) {
  std::string err = ConfigRewrite();
  if (!err.empty()) {
    LOG_WARNING("CONFIG REWRITE failed: %s", err.c_str());
    return c->R().Error(err);
  }
  LOG_NOTICE("CONFIG REWRITE executed with success.");
  c->R().Ok();
}

void ConfigHelpCmd(Client* c) {
  ReplyHelp(
      c, "CONFIG",
      {"GET <pattern>", "    Return parameters matching the glob-like <pattern> and their values.",
       "SET <directive> <value>", "    Set the configuration <directive> to <value>.", "RESETSTAT",
       "    Reset statistics reported by the INFO command.", "REWRITE",
       "    Rewrite the configuration file."});
}

// ---- COMMAND ----
void ReplyKeyFlags(net::Reply& r, uint32_t flags) {
  std::vector<const char*> names;
  KeyFlagNames(flags, &names);
  r.SetLen(static_cast<int64_t>(names.size()));
  for (auto* n : names) r.Simple(n);
}

void ReplyKeySpecs(net::Reply& r, const CommandSpec* c) {
  r.SetLen(static_cast<int64_t>(c->key_specs.size()));
  for (const KeySpec& ks : c->key_specs) {
    r.MapLen(3);
    r.Bulk("flags");
    ReplyKeyFlags(r, ks.flags);
    r.Bulk("begin_search");
    r.MapLen(2);
    r.Bulk("type");
    if (ks.begin == KeySpec::kIndex) {
      r.Bulk("index");
      r.Bulk("spec");
      r.MapLen(1);
      r.Bulk("index");
      r.Int(ks.index);
    } else if (ks.begin == KeySpec::kKeyword) {
      r.Bulk("keyword");
      r.Bulk("spec");
      r.MapLen(2);
      r.Bulk("keyword");
      r.Bulk(ks.keyword);
      r.Bulk("startfrom");
      r.Int(ks.startfrom);
    } else {
      r.Bulk("unknown");
      r.Bulk("spec");
      r.MapLen(0);
    }
    r.Bulk("find_keys");
    r.MapLen(2);
    r.Bulk("type");
    if (ks.find == KeySpec::kRange) {
      r.Bulk("range");
      r.Bulk("spec");
      r.MapLen(3);
      r.Bulk("lastkey");
      r.Int(ks.lastkey);
      r.Bulk("keystep");
      r.Int(ks.keystep);
      r.Bulk("limit");
      r.Int(ks.limit);
    } else if (ks.find == KeySpec::kKeynum) {
      r.Bulk("keynum");
      r.Bulk("spec");
      r.MapLen(3);
      r.Bulk("keynumidx");
      r.Int(ks.keynumidx);
      r.Bulk("firstkey");
      r.Int(ks.firstkey);
      r.Bulk("keystep");
      r.Int(ks.keystep);
    } else {
      r.Bulk("unknown");
      r.Bulk("spec");
      r.MapLen(0);
    }
  }
}

void ReplyCommandInfo(net::Reply& r, const CommandSpec* c) {
  r.ArrayLen(10);
  r.Bulk(c->fullname);
  r.Int(c->arity);
  std::vector<std::string> flags;
  FlagNames(c->flags, &flags);
  r.SetLen(static_cast<int64_t>(flags.size()));
  for (auto& f : flags) r.Simple(f);
  r.Int(c->first_key);
  r.Int(c->last_key);
  r.Int(c->step);
  std::vector<std::string> cats;
  AclCategories(c, &cats);
  r.SetLen(static_cast<int64_t>(cats.size()));
  for (auto& a : cats) r.Simple(a);
  std::vector<std::string_view> tips = CommandTips(c->fullname);
  r.SetLen(static_cast<int64_t>(tips.size()));
  for (std::string_view t : tips) r.Bulk(t);
  ReplyKeySpecs(r, c);
  r.ArrayLen(static_cast<int64_t>(c->subcommands.size()));
  for (auto& s : c->subcommands) ReplyCommandInfo(r, &s);
}

void CommandDefault(Client* c) {
  auto r = c->R();
  r.ArrayLen(static_cast<int64_t>(AllCommands().size()));
  for (auto* cmd : AllCommands()) ReplyCommandInfo(r, cmd);
}

void CommandCount(Client* c) { c->R().Int(static_cast<int64_t>(AllCommands().size())); }

const CommandSpec* FindByFullName(std::string_view name) {
  size_t bar = name.find('|');
  if (bar == std::string_view::npos) return LookupCommand(name);
  const CommandSpec* p = LookupCommand(name.substr(0, bar));
  if (!p) return nullptr;
  for (auto& s : p->subcommands)
    if (base::EqualsNoCase(s.name, name.substr(bar + 1))) return &s;
  return nullptr;
}

void CommandInfoCmd(Client* c) {
  auto r = c->R();
  if (c->argv.size() == 2) return CommandDefault(c);
  r.ArrayLen(static_cast<int64_t>(c->argv.size() - 2));
  for (size_t i = 2; i < c->argv.size(); i++) {
    const CommandSpec* cmd = FindByFullName(c->argv[i]);
    if (cmd)
      ReplyCommandInfo(r, cmd);
    else
      r.NullArray();
  }
}

void ReplyDocs(net::Reply& r, const CommandSpec* c) {
  bool subs = !c->subcommands.empty();
  const std::vector<DocArg>* args = DocArguments(c->fullname);
  // Valkey 8 gives no complexity for a few commands (MONITOR, SYNC, PSYNC, XREAD, LOLWUT):
  // those register none.
  r.MapLen(3 + (c->complexity != nullptr) + (args != nullptr) + subs);
  r.Bulk("summary");
  r.Bulk(c->summary ? c->summary : "");
  r.Bulk("since");
  r.Bulk(c->since ? c->since : "1.0.0");
  r.Bulk("group");
  r.Bulk(c->group ? c->group : "server");
  if (c->complexity) {
    r.Bulk("complexity");
    r.Bulk(c->complexity);
  }
  if (args) {
    r.Bulk("arguments");
    ReplyDocArguments(r, *args);
  }
  if (subs) {
    r.Bulk("subcommands");
    r.MapLen(static_cast<int64_t>(c->subcommands.size()));
    for (auto& s : c->subcommands) {
      r.Bulk(s.fullname);
      ReplyDocs(r, &s);
    }
  }
}

void CommandDocsCmd(Client* c) {
  auto r = c->R();
  std::vector<const CommandSpec*> list;
  if (c->argv.size() == 2) {
    for (auto* cmd : AllCommands()) list.push_back(cmd);
  } else {
    for (size_t i = 2; i < c->argv.size(); i++)
      if (const CommandSpec* cmd = FindByFullName(c->argv[i])) list.push_back(cmd);
  }
  r.MapLen(static_cast<int64_t>(list.size()));
  for (auto* cmd : list) {
    r.Bulk(cmd->fullname);
    ReplyDocs(r, cmd);
  }
}

// COMMAND GETKEYS / GETKEYSANDFLAGS <command> <args...>, with Valkey's checks and errors.
void CommandGetKeysCmd(Client* c, bool with_flags) {
  std::vector<std::string_view> argv(c->argv.begin() + 2, c->argv.end());
  const CommandSpec* cmd = LookupCommandArgv(argv);
  if (!cmd) return c->R().Error("Invalid command specified");
  if (!CommandHasKeys(cmd)) return c->R().Error("The command has no key arguments");
  int argc = static_cast<int>(argv.size());
  if ((cmd->arity > 0 && argc != cmd->arity) || argc < -cmd->arity)
    return c->R().Error("Invalid number of arguments specified for command");
  std::vector<KeyRef> keys;
  if (!FindKeys(cmd, argv, &keys) || keys.empty()) {
    if (cmd->flags & kCmdNoMandatoryKeys) return c->R().ArrayLen(0);
    return c->R().Error("Invalid arguments specified for command");
  }
  auto r = c->R();
  r.ArrayLen(static_cast<int64_t>(keys.size()));
  for (const KeyRef& k : keys) {
    if (with_flags) r.ArrayLen(2);
    r.Bulk(argv[k.pos]);
    if (with_flags) ReplyKeyFlags(r, k.flags);
  }
}

void CommandListCmd(Client* c) {
  std::string filter_kind, filter_val;
  if (c->argv.size() == 5 && base::EqualsNoCase(c->argv[2], "filterby")) {
    filter_kind = base::ToLower(c->argv[3]);
    filter_val = std::string(c->argv[4]);
    if (filter_kind != "module" && filter_kind != "aclcat" && filter_kind != "pattern")
      return c->R().Error(kErrSyntax);
  } else if (c->argv.size() != 2) {
    return c->R().Error(kErrSyntax);
  }
  std::vector<std::string> names;
  auto consider = [&](const CommandSpec* cmd) {
    if (filter_kind == "module") return;
    if (filter_kind == "pattern" && !base::GlobMatch(filter_val, cmd->fullname, true)) return;
    if (filter_kind == "aclcat") {
      std::vector<std::string> cats;
      AclCategories(cmd, &cats);
      bool hit = false;
      for (auto& cat : cats) hit |= base::EqualsNoCase(cat.substr(1), filter_val);
      if (!hit) return;
    }
    names.push_back(cmd->fullname);
  };
  for (auto* cmd : AllCommands()) {
    consider(cmd);
    for (auto& s : cmd->subcommands) consider(&s);
  }
  auto r = c->R();
  r.ArrayLen(static_cast<int64_t>(names.size()));
  for (auto& n : names) r.Bulk(n);
}

void CommandHelpCmd(Client* c) {
  ReplyHelp(c, "COMMAND",
            {"(no subcommand)", "    Return details about all commands.", "COUNT",
             "    Return the total number of commands in this server.", "LIST",
             "    Return a list of all commands in this server.", "INFO [<command-name> ...]",
             "    Return details about multiple commands.", "DOCS [<command-name> ...]",
             "    Return documentation details about multiple commands.", "GETKEYS <full-command>",
             "    Return the keys from a full command.", "GETKEYSANDFLAGS <full-command>",
             "    Return the keys and the access flags from a full command."});
}

void CommandCommand(Client* c) {
  if (c->argv.size() == 1) return CommandDefault(c);
  std::string sub = base::ToLower(c->argv[1]);
  if (sub == "count" && c->argv.size() == 2) return CommandCount(c);
  if (sub == "info") return CommandInfoCmd(c);
  if (sub == "docs") return CommandDocsCmd(c);
  if (sub == "getkeys" && c->argv.size() >= 3) return CommandGetKeysCmd(c, false);
  if (sub == "getkeysandflags" && c->argv.size() >= 3) return CommandGetKeysCmd(c, true);
  if (sub == "list") return CommandListCmd(c);
  if (sub == "help" && c->argv.size() == 2) return CommandHelpCmd(c);
  if (sub == "count" || sub == "getkeys" || sub == "getkeysandflags" || sub == "help")
    return c->R().Error("wrong number of arguments for 'command|" + sub + "' command");
  ReplyUnknownSubcommand(c, c->argv[1], "COMMAND");
}

// ---- DEBUG ----
bool DebugAllowed(Client* c) {
  int mode = cfg.enable_debug_command;
  if (mode == 1) return true;
  if (mode == 2 && IsLocalClient(c)) return true;
  c->R().Error(
      "DEBUG command not allowed. If the enable-debug-command option is set to \"local\", you "
      "can run it from a local connection, otherwise you need to set this option in the "
      "configuration file, and then restart the server.");
  return false;
}

// Digest of a key and its value: equal on every node holding equal data, whatever the
// encoding or the iteration order of unordered types (their elements are XORed). Without the
// key (DEBUG DIGEST-VALUE), only the value and whether it expires count, as in Valkey 8: a key
// and its COPY digest the same.
void DigestKey(db::Obj* o, uint8_t out[20], bool with_key = true) {
  static const uint8_t k1[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
  static const uint8_t k2[16] = {16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1};
  auto h = [](const std::string& s, const uint8_t* k) {
    return base::SipHash13(s.data(), s.size(), k);
  };
  persist::Value v = persist::ToValue(o);
  std::string head(with_key ? o->key() : std::string_view());
  head.push_back('\0');
  head.push_back(static_cast<char>(o->type()));
  int64_t e = o->expire();
  if (!with_key) e = e >= 0 ? 1 : -1;  // the value's digest: whether it expires, not when
  head.append(reinterpret_cast<const char*>(&e), 8);
  uint64_t a = h(head, k1), b = h(head, k2);
  auto mix_ordered = [&](const std::string& item) {
    a = h(std::to_string(a) + item, k1);
    b = h(std::to_string(b) + item, k2);
  };
  auto mix_unordered = [&](const std::string& item) {
    a ^= h(item, k1);
    b ^= h(item, k2);
  };
  switch (v.kind) {
    case persist::Kind::kString:
      mix_ordered(v.str);
      break;
    case persist::Kind::kList:
      for (auto& x : v.elems) mix_ordered(x);
      break;
    case persist::Kind::kSet:
      for (auto& x : v.elems) mix_unordered(x);
      break;
    case persist::Kind::kZSet:
      for (auto& [m, sc] : v.zelems) mix_ordered(m + '\0' + base::FormatDouble(sc));
      break;
    case persist::Kind::kHash:
      for (auto& [f, val] : v.pairs) mix_unordered(f + '\0' + val);
      break;
    case persist::Kind::kStream: {
      db::Stream* s = v.stream.get();
      db::StreamIterator si(s, db::StreamID{}, db::kStreamMaxID, false);
      db::StreamID id;
      int64_t n;
      while (si.Next(&id, &n)) {
        std::string item = id.ToString();
        std::string_view f, val;
        for (int64_t i = 0; i < n; i++) {
          si.Field(&f, &val);
          item.append(1, '\0').append(f).append(1, '\0').append(val);
        }
        mix_ordered(item);
      }
      mix_ordered(s->last_id.ToString());
      for (auto& [name, cg] : s->groups) {
        mix_ordered(name + '\0' + cg->last_id.ToString());
        for (auto& [pid, nack] : cg->pel) mix_ordered(pid.ToString() + '\0' + nack.consumer->name);
      }
      break;
    }
  }
  uint64_t cc = a ^ (b << 1);
  memcpy(out, &a, 8);
  memcpy(out + 8, &b, 8);
  memcpy(out + 16, &cc, 4);
}

// Bytes a string takes in the snapshot format (uncompressed): DEBUG OBJECT serializedlength.
size_t SnapshotStringLen(std::string_view v) {
  int64_t iv;
  if (v.size() <= 11 && base::ParseInt64(v, &iv)) {
    if (iv >= -128 && iv <= 127) return 2;
    if (iv >= -32768 && iv <= 32767) return 3;
    if (iv >= INT32_MIN && iv <= INT32_MAX) return 5;
  }
  size_t n = v.size();
  size_t prefix = n < 64 ? 1 : n < 16384 ? 2 : n <= UINT32_MAX ? 5 : 9;
  return prefix + n;
}

std::string Hex(const uint8_t* d, int n) {
  static const char* h = "0123456789abcdef";
  std::string s;
  for (int i = 0; i < n; i++) {
    s.push_back(h[d[i] >> 4]);
    s.push_back(h[d[i] & 15]);
  }
  return s;
}

// Valkey's DEBUG answers an unknown subcommand and a wrong argument count alike.
void DebugSyntaxError(Client* c) {
  c->R().Error("unknown subcommand or wrong number of arguments for '" +
               std::string(c->argv[1].substr(0, 128)) + "'. Try DEBUG HELP.");
}

// C's atoi, which Valkey's DEBUG switches use: leading digits, anything else is 0.
int Atoi(std::string_view s) { return atoi(std::string(s).c_str()); }

// DEBUG POPULATE count [prefix] [size]: keys <prefix>:<n> (the name cut at 127 bytes, as
// Valkey's fixed buffer does), values value:<n> cut or padded with zero bytes to <size>.
// As in Valkey 8: no propagation, no dirty count (a replica never sees these keys), and in
// cluster mode keys of any slot (our per-slot tables take them; nodes.conf is not involved).
void DebugPopulate(Client* c) {
  auto& a = c->argv;
  int64_t count, size = 0;
  if (!ArgPositive(c, a[2], &count)) return;
  if (a.size() == 5 && !ArgPositive(c, a[4], &size)) return;
  std::string_view prefix = a.size() >= 4 ? a[3] : std::string_view("key");
  std::string key, val;
  for (int64_t j = 0; j < count; j++) {
    key.assign(prefix).append(":").append(std::to_string(j));
    if (key.size() > 127) key.resize(127);
    if (LookupWrite(c, key)) continue;
    val = "value:" + std::to_string(j);
    if (size) val.resize(static_cast<size_t>(size), '\0');
    c->db->Add(db::NewString(key, val));
    KeyModified(c->dbid, key);
  }
  c->R().Ok();
}

// DEBUG STRINGMATCH-TEST: random patterns, dense in glob syntax, against random strings. The
// matcher must return (any answer) without reading outside either buffer.
void StringMatchFuzz() {
  static const char kPatternBytes[] = "*?[]^-\\ab";
  std::mt19937_64 rng(base::UsTime());
  std::string pat, str;
  for (int i = 0; i < 100000; i++) {
    pat.resize(rng() % 32);
    for (auto& ch : pat)
      ch =
          rng() % 4 ? kPatternBytes[rng() % (sizeof(kPatternBytes) - 1)] : static_cast<char>(rng());
    str.resize(rng() % 32);
    for (auto& ch : str) ch = rng() % 2 ? "ab"[rng() % 2] : static_cast<char>(rng());
    // Exact-size copies, so a sanitizer build sees a read one past either end.
    std::unique_ptr<char[]> p(new char[pat.size()]), s(new char[str.size()]);
    memcpy(p.get(), pat.data(), pat.size());
    memcpy(s.get(), str.data(), str.size());
    base::GlobMatch({p.get(), pat.size()}, {s.get(), str.size()}, i & 1);
  }
}

// DEBUG LISTPACK / QUICKLIST print to standard output, as Valkey's lpRepr / quicklistRepr
// do (our own layout): the size, then one line per entry.
void PrintListpack(const uint8_t* lp, bool entries, const char* indent) {
  printf("%s{listpack} bytes:%zu entries:%zu\n", indent, ds::lp::Bytes(lp), ds::lp::Length(lp));
  if (!entries) return;
  uint8_t* l = const_cast<uint8_t*>(lp);
  size_t i = 0;
  for (uint8_t* p = ds::lp::First(l); p; p = ds::lp::Next(l, p), i++) {
    ds::lp::Entry e = ds::lp::Get(p);
    if (e.is_int)
      printf("%s  [%zu] int %lld\n", indent, i, static_cast<long long>(e.ival));
    else
      printf("%s  [%zu] str(%u) %.*s\n", indent, i, e.slen, static_cast<int>(e.slen),
             reinterpret_cast<const char*>(e.sval));
  }
  fflush(stdout);
}

// The same for the pack of a small hash, set or sorted set (stride 2, 1, 2).
void PrintPack(const uint8_t* pk, unsigned stride) {
  printf("{pack} bytes:%zu entries:%zu\n", ds::pack::Bytes(pk), ds::pack::Length(pk));
  ds::pack::Reader r(pk, stride);
  while (r.Next())
    printf("  [%zu] %.*s\n", r.Index(), static_cast<int>(r.Text().size()), r.Text().data());
  fflush(stdout);
}

void PrintQuicklist(const ds::Quicklist& ql, bool full) {
  printf("{quicklist} nodes:%zu entries:%zu bytes:%zu fill:%d compress:%d\n", ql.NodeCount(),
         ql.Count(), ql.Bytes(), ql.fill(), ql.compress_depth());
  size_t n = 0, first = 0;
  for (const ds::QuicklistNode& node : ql.Nodes()) {
    printf("  {node %zu} entries:%u bytes:%u compressed:%s", n++, node.count,
           node.csize ? node.rawsize : static_cast<uint32_t>(ds::lp::Bytes(node.lp)),
           node.csize ? "yes" : "no");
    if (node.csize) printf(" compressed_bytes:%u", node.csize);
    printf("\n");
    if (full) {
      ql.Walk(first, false, [&](size_t idx, std::string_view v) {
        if (idx >= first + node.count) return false;
        printf("    [%zu] %.*s\n", idx, static_cast<int>(v.size()), v.data());
        return true;
      });
    }
    first += node.count;
  }
  fflush(stdout);
}

void DebugCommand(Client* c) {
  if (!DebugAllowed(c)) return;
  auto& a = c->argv;
  std::string sub = base::ToLower(a[1]);
  auto r = c->R();
  if (sub == "help") {
    return ReplyHelp(
        c, "DEBUG",
        {"AOF-FLUSH-SLEEP <microsec>",
         "    Sleep this long before each write of the AOF buffer (0: never; for tests).",
         "CHANGE-REPL-ID",
         "    Give the node new replication IDs (for tests of replication only).",
         "CONFIG-REWRITE-FORCE-ALL",
         "    Like CONFIG REWRITE, with every directive written, defaults included.",
         "DIGEST",
         "    Reply with a hex digest of the whole data set.",
         "DIGEST-VALUE <key> [<key> ...]",
         "    Reply with a hex digest of each given key's value.",
         "LOG <message>",
         "    Write <message> to the log at warning level.",
         "LOADAOF",
         "    Write out pending AOF data, then load the data set back from the AOF.",
         "OBJECT <key> [fast]",
         "    Low level facts about <key> and its value (encoding, sizes, access clock).",
         "DROP-CLUSTER-PACKET-FILTER <packet-type>",
         "    The cluster bus ignores each received message of this type; -1 ignores none.",
         "CLOSE-CLUSTER-LINK-ON-PACKET-DROP <0|1>",
         "    With 1, a message ignored by DROP-CLUSTER-PACKET-FILTER also closes its link.",
         "SLOT-MIGRATION-HANDOVER-DELAY <ms>",
         "    An atomic slot migration's target stalls <ms> before it takes the slots (0: none).",
         "CONFIG-FSYNC-DELAY <ms>",
         "    The cluster config's background fsyncs (and its other helper-thread file jobs)",
         "    wait <ms> first, as on a slow disk (0: none).",
         "SLOT-MIGRATION-WALK-LIMIT <keys>",
         "    An atomic slot migration's source stops sending keys once a job has sent <keys>",
         "    keys or pieces of big values (0: no limit); writes are still forwarded.",
         "SLOT-MIGRATION-LINK <HOLD|RELEASE|DROP>",
         "    An atomic slot migration's source leaves its targets' replies unread (HOLD) or",
         "    reads them again (RELEASE), or drops its connections as if lost (DROP).",
         "POPULATE <count> [<prefix>] [<size>]",
         "    Add string keys <prefix>:0 to <prefix>:<count>-1 (prefix 'key'), each holding",
         "    value:<n>, cut or zero-padded to <size> bytes when given. Keys that exist stay",
         "    as they are. Nothing is propagated, and in cluster mode every key is made here",
         "    whatever node serves its slot.",
         "PROTOCOL <type>",
         "    Reply with a sample of a RESP type: string, integer, double, bignum, null,",
         "    array, set, map, attrib, push, verbatim, true or false.",
         "REPLICATE <command> [<arg> ...]",
         "    Send the command down the replication stream only, without running it here.",
         "RELOAD [MERGE] [NOFLUSH] [NOSAVE]",
         "    Save the snapshot, then load it back in place of the data set. MERGE: loaded",
         "    keys replace existing ones; NOFLUSH: the data set is not emptied first;",
         "    NOSAVE: load the snapshot file as it is, without saving first.",
         "SET-ACTIVE-EXPIRE <0|1>",
         "    0 stops the background expiry of keys (they still expire when accessed); 1",
         "    starts it again.",
         "QUICKLIST-PACKED-THRESHOLD <size>",
         "    Accepted for compatibility (a size up to 4gb); lists here store every element",
         "    packed.",
         "SET-SKIP-CHECKSUM-VALIDATION <0|1>",
         "    1 skips the checksum checks of loaded snapshots and of RESTORE payloads.",
         "SLEEP <seconds>",
         "    Block the node for <seconds> (fractions allowed).",
         "SEGFAULT",
         "    Crash the node with a memory access fault (its bug report goes to the log).",
         "ASSERT",
         "    Crash the node with a failed assertion (its report goes to the log).",
         "STRINGMATCH-TEST",
         "    Run random patterns and strings through the glob matcher.",
         "LISTPACK <key>",
         "    Print the entries of a listpack-encoded value on standard output.",
         "QUICKLIST <key> [<0|1>]",
         "    Print the nodes of a quicklist-encoded list on standard output; 1 adds their",
         "    entries.",
         "PAUSE-CRON <0|1>",
         "    1 stops the periodic work (expiry, timeouts, the cluster cron...); 0 resumes it.",
         "REPLYBUFFER PEAK-RESET-TIME <NEVER|RESET|time>",
         "    Accepted for compatibility; reply buffers here are not resized by a timer.",
         "REPLYBUFFER RESIZING <0|1>",
         "    Accepted for compatibility, as above.",
         "DICT-RESIZING <0|1>",
         "    0 stops the key and expire tables from growing or shrinking; 1 allows it.",
         "HTSTATS <dbid> [full]",
         "    Figures of the database's key and expire hash tables; full adds chain lengths.",
         "HTSTATS-KEY <key> [full]",
         "    The same for the hash table of a hash, set or sorted set value.",
         "CLUSTERLINK KILL <to|from|all> <node-id>",
         "    Close this node's cluster bus link to (to), from (from) or both ways with",
         "    <node-id>; the bus connects again at its next cron."});
  }
  // A reload from inside a load (DEBUG is flagged loading) would save and replace what is
  // half loaded.
  bool in_load = Loading() || AsyncLoading();
  if (sub == "reload" && in_load) return r.Error(ErrLoading());
  if (sub == "reload") return DebugReloadCommand(c);
  if (sub == "htstats" && a.size() >= 3) return DebugHtStats(c);
  if (sub == "htstats-key" && a.size() >= 3) return DebugHtStatsKey(c);
  if (sub == "loadaof") {
    // Replayed from the AOF itself (a hand-written file, or one written before DEBUG LOADAOF
    // stopped being propagated), it would load the file that holds it again, without end, until
    // the stack overflowed (Valkey 8 and Redis 7.0 do). At that point of the replay the data set
    // is already what the file held before it, so refusing it loses nothing.
    if (AofLoading() && c->conn.fd < 0) {  // the AOF loader replaying it
      LOG_WARNING("DEBUG LOADAOF found in the AOF being loaded: refused, the load goes on");
      return r.Error("DEBUG LOADAOF is not allowed while the AOF is loading");
    }
    if (in_load) return r.Error(ErrLoading());
    if (!AofDebugReload()) return r.Error("Error trying to load the AOF files, check server logs.");
    g.dirty = 0;
    LOG_NOTICE("Append Only File loaded by DEBUG LOADAOF");
    return r.Ok();
  }
  if (sub == "log" && a.size() == 3) {
    LOG_WARNING("DEBUG LOG: %.*s", static_cast<int>(a[2].size()), a[2].data());
    return r.Ok();
  }
  if (sub == "sleep" && a.size() == 3) {
    double secs;
    if (!base::ParseDouble(a[2], &secs) || secs < 0) return r.Error(kErrNotFloat);
    // The whole time, also when a signal (the watchdog's SIGALRM) cuts a sleep short.
    int64_t until = base::MonotonicUs() + static_cast<int64_t>(secs * 1e6);
    for (int64_t now; (now = base::MonotonicUs()) < until;)
      usleep(static_cast<useconds_t>(std::min<int64_t>(until - now, 1000000)));
    return r.Ok();
  }
  // A crash and a failed assertion on demand: their reports in the log (crash_report.h).
  if (sub == "segfault" && a.size() == 2) {
    volatile char* bad = reinterpret_cast<volatile char*>(-1);
    *bad = 'x';
  }
  if (sub == "assert" && a.size() == 2) AssertFailed("1 == 2", __FILE__, __LINE__);
  if (sub == "replicate" && a.size() >= 3) {
    WriteOut(c->dbid, std::vector<std::string_view>(a.begin() + 2, a.end()), kToReplicas);
    return r.Ok();
  }
  if (sub == "aof-flush-sleep" && a.size() == 3) {
    // As Valkey 8's: the argument read with atoi (a word is 0).
    g.aof_flush_sleep_us = atoi(std::string(a[2]).c_str());
    return r.Ok();
  }
  if (sub == "set-active-expire" && a.size() == 3) {
    g.active_expire_enabled = a[2] != "0";
    return r.Ok();
  }
  if (sub == "quicklist-packed-threshold" && a.size() == 3) {
    auto sz = base::ParseMemory(a[2]);
    if (!sz || *sz > (uint64_t{1} << 32))
      return r.Error("argument must be a memory value bigger than 1 and smaller than 4gb");
    return r.Ok();
  }
  if (sub == "config-rewrite-force-all" && a.size() == 2) {
    std::string err = ConfigRewrite(/*force_all=*/true);
    if (!err.empty()) return r.Error("CONFIG-REWRITE-FORCE-ALL failed: " + err);
    return r.Ok();
  }
  if (sub == "change-repl-id" && a.size() == 2) {
    Repl().new_replication_id();
    return r.Ok();
  }
  if (sub == "object" && (a.size() == 3 || a.size() == 4)) {  // [fast]: all is cheap here
    db::Obj* o = c->db->Find(a[2]);
    if (!o) return r.Error(kErrNoSuchKey);
    char buf[512], tmp[24];
    uint32_t now = db::LruClock();
    size_t serialized = o->type() == db::kString
                            ? SnapshotStringLen(o->str(tmp))
                            : persist::EncodeDump(persist::ToValue(o)).size() - 11;
    snprintf(buf, sizeof(buf),
             "Value at:%p refcount:1 encoding:%s serializedlength:%zu lru:%u "
             "lru_seconds_idle:%u lfu_freq:0 lfu_access_time_minutes:0",
             static_cast<void*>(o), db::EncodingName(o->enc()), serialized, o->lru(),
             now >= o->lru() ? now - o->lru() : 0);
    std::string line = buf;
    if (o->enc() == db::kEncQuicklist) {  // Valkey 8's quicklist figures
      auto* ql = static_cast<const ds::Quicklist*>(o->ptr());
      snprintf(buf, sizeof(buf),
               " ql_nodes:%zu ql_avg_node:%.2f ql_listpack_max:%d ql_compressed:%d",
               ql->NodeCount(),
               ql->NodeCount() ? static_cast<double>(ql->Count()) / ql->NodeCount() : 0.0,
               ql->fill(), ql->compress_depth() != 0 ? 1 : 0);
      line += buf;
      if (a.size() == 3) {  // not FAST: the nodes' listpack bytes, walked
        size_t raw = 0;
        for (const ds::QuicklistNode& n : ql->Nodes())
          raw += n.csize ? n.rawsize : ds::lp::Bytes(n.lp);
        line += " ql_uncompressed_size:" + std::to_string(raw);
      }
    }
    return r.Simple(line);
  }
  if (sub == "digest" && a.size() == 2) {
    uint8_t total[20] = {};
    bool any = false;
    for (int i = 0; i < NumDbs(); i++) {
      GetDb(i)->ForEach([&](db::Obj* o) {
        uint8_t d[20];
        DigestKey(o, d);
        d[0] ^= static_cast<uint8_t>(i);
        for (int k = 0; k < 20; k++) total[k] ^= d[k];
        any = true;
      });
    }
    return r.Simple(any ? Hex(total, 20) : std::string(40, '0'));
  }
  if (sub == "digest-value" && a.size() >= 2) {
    r.ArrayLen(static_cast<int64_t>(a.size() - 2));
    for (size_t i = 2; i < a.size(); i++) {
      db::Obj* o = c->db->Find(a[i]);
      uint8_t d[20] = {};
      if (o) DigestKey(o, d, /*with_key=*/false);
      r.Simple(o ? Hex(d, 20) : std::string(40, '0'));
    }
    return;
  }
  if (sub == "protocol" && a.size() == 3) {
    std::string t = base::ToLower(a[2]);
    if (t == "string") return r.Bulk("Hello World");
    if (t == "integer") return r.Int(12345);
    if (t == "double") return r.Double(3.141);
    if (t == "bignum") return r.BigNum("1234567999999999999999999999999999999");
    if (t == "null") return r.Null();
    if (t == "array") {
      r.ArrayLen(3);
      for (int i = 0; i < 3; i++) r.Int(i);
      return;
    }
    if (t == "set") {
      r.SetLen(3);
      for (int i = 0; i < 3; i++) r.Int(i);
      return;
    }
    if (t == "map") {
      r.MapLen(3);
      for (int i = 0; i < 3; i++) {
        r.Int(i);
        r.Bool(i == 1);
      }
      return;
    }
    if (t == "attrib") {
      if (r.resp() >= 3) {
        r.AttrLen(1);
        r.Bulk("key-popularity");
        r.ArrayLen(2);
        r.Bulk("key:123");
        r.Int(90);
      }
      return r.Bulk("Some real reply following the attribute");
    }
    if (t == "push") {
      if (r.resp() < 3) return r.Error("RESP2 is not supported by this command");
      r.Bulk("Some real reply following the push reply");
      r.PushLen(2);
      r.Bulk("server-cpu-usage");
      return r.Int(42);
    }
    if (t == "true") return r.Bool(true);
    if (t == "false") return r.Bool(false);
    if (t == "verbatim") return r.Verbatim("This is a verbatim\nstring");
    return r.Error(
        "Wrong protocol type name. Please use one of the following: string|integer|"
        "double|bignum|null|array|set|map|attrib|push|verbatim|true|false");
  }
  if (sub == "populate" && a.size() >= 3 && a.size() <= 5) return DebugPopulate(c);
  if (sub == "pause-cron" && a.size() == 3) {
    g.pause_cron = Atoi(a[2]) != 0;
    return r.Ok();
  }
  if (sub == "set-skip-checksum-validation" && a.size() == 3) {
    g.skip_checksum_validation = Atoi(a[2]) != 0;
    return r.Ok();
  }
  if (sub == "dict-resizing" && a.size() == 3) {
    bool forbidden = Atoi(a[2]) == 0;
    db::KeyTable::SetResizeForbidden(forbidden);
    db::ExpireSet::SetResizeForbidden(forbidden);
    return r.Ok();
  }
  if (sub == "drop-cluster-packet-filter" && a.size() == 3) {
    int64_t type;
    if (!ArgInt(c, a[2], &type)) return;
    g.cluster_drop_packet_filter = type;
    return r.Ok();
  }
  // A non-negative integer argument, else its error is the reply.
  auto non_negative = [&](const char* what, int64_t* out) {
    if (!ArgInt(c, a[2], out)) return false;
    if (*out >= 0) return true;
    r.Error(std::string(what) + " must not be negative");
    return false;
  };
  if (sub == "slot-migration-handover-delay" && a.size() == 3) {
    int64_t ms;
    if (!non_negative("delay", &ms)) return;
    g.slot_migration_handover_delay_ms = ms;
    return r.Ok();
  }
  if (sub == "config-fsync-delay" && a.size() == 3) {
    int64_t ms;
    if (!non_negative("delay", &ms)) return;
    g.config_fsync_delay_ms.store(ms);
    return r.Ok();
  }
  if (sub == "slot-migration-walk-limit" && a.size() == 3) {
    int64_t keys;
    if (!non_negative("limit", &keys)) return;
    g.slot_migration_walk_limit = static_cast<uint64_t>(keys);
    return r.Ok();
  }
  if (sub == "slot-migration-link" && a.size() == 3) {
    if (base::EqualsNoCase(a[2], "hold") || base::EqualsNoCase(a[2], "release"))
      g.slot_migration_hold_replies = base::EqualsNoCase(a[2], "hold");
    else if (base::EqualsNoCase(a[2], "drop"))
      g.slot_migration_drop_links = true;
    else
      return r.Error("HOLD, RELEASE or DROP expected");
    return r.Ok();
  }
  if (sub == "close-cluster-link-on-packet-drop" && a.size() == 3) {
    g.cluster_close_link_on_packet_drop = Atoi(a[2]) != 0;
    return r.Ok();
  }
  if (sub == "replybuffer" && a.size() == 4) {
    // Reply buffers here shrink when written out (net/buffered_conn.cc), not on a peak
    // timer: the settings are checked as Valkey checks them and have nothing to change.
    std::string what = base::ToLower(a[2]);
    if (what == "peak-reset-time") {
      int64_t ms;
      if (!base::EqualsNoCase(a[3], "never") && !base::EqualsNoCase(a[3], "reset") &&
          !ArgInt(c, a[3], &ms))
        return;
    } else if (what != "resizing") {
      return DebugSyntaxError(c);
    }
    return r.Ok();
  }
  if (sub == "stringmatch-test" && a.size() == 2) {
    StringMatchFuzz();
    return r.Simple("Apparently the server did not crash: test passed");
  }
  if (sub == "listpack" && a.size() == 3) {
    db::Obj* o = c->db->Find(a[2]);
    if (!o) return r.Error(kErrNoSuchKey);
    if (o->enc() != db::kEncListpack) return r.Error("Not a listpack encoded object.");
    if (o->type() == db::kList)
      PrintListpack(static_cast<const uint8_t*>(o->ptr()), true, "");
    else
      PrintPack(static_cast<const uint8_t*>(o->ptr()), o->type() == db::kSet ? 1 : 2);
    return r.Simple("Listpack structure printed on stdout");
  }
  if (sub == "quicklist" && (a.size() == 3 || a.size() == 4)) {
    db::Obj* o = c->db->Find(a[2]);
    if (!o) return r.Error(kErrNoSuchKey);
    bool full = a.size() == 4 && Atoi(a[3]) != 0;
    if (o->enc() != db::kEncQuicklist) return r.Error("Not a quicklist encoded object.");
    PrintQuicklist(*static_cast<const ds::Quicklist*>(o->ptr()), full);
    return r.Simple("Quicklist structure printed on stdout");
  }
  if (Cluster().debug(c)) return;
  DebugSyntaxError(c);
}

// ---- MEMORY ----
void MemoryUsage(Client* c) {
  if (c->argv.size() != 3) {
    if (c->argv.size() != 5 || !base::EqualsNoCase(c->argv[3], "samples"))
      return c->R().Error(kErrSyntax);
    int64_t samples;
    if (!ArgInt(c, c->argv[4], &samples)) return;
    if (samples < 0) return c->R().Error(kErrSyntax);
  }
  db::Obj* o = c->db->Lookup(c->argv[2]);
  if (!o) return c->R().Null();
  size_t bytes = malloc_usable_size(o) + db::ValueBytes(o) + sizeof(void*);
  if (o->has_expire()) bytes += 2 * sizeof(void*);
  c->R().Int(static_cast<int64_t>(bytes));
}

void MemoryStats(Client* c) {
  server::MemoryReport m = server::BuildMemoryReport();
  auto r = c->R();
  r.MapLen(31 + m.dbs.size());
  auto num = [&](const char* k, uint64_t v) {
    r.Bulk(k);
    r.Int(static_cast<int64_t>(v));
  };
  auto sint = [&](const char* k, int64_t v) {
    r.Bulk(k);
    r.Int(v);
  };
  auto dbl = [&](const char* k, double v) {
    r.Bulk(k);
    r.Double(v);
  };
  num("peak.allocated", m.peak);
  num("total.allocated", m.total);
  num("startup.allocated", m.startup);
  num("replication.backlog", m.repl_backlog);
  num("clients.slaves", m.clients_replicas);
  num("clients.normal", m.clients_normal);
  num("cluster.links", m.cluster_links);
  num("aof.buffer", m.aof_buffer);
  num("lua.caches", 0);
  num("functions.caches", 0);
  for (auto& d : m.dbs) {
    r.Bulk("db." + std::to_string(d.id));
    r.MapLen(2);
    num("overhead.hashtable.main", d.main);
    num("overhead.hashtable.expires", d.expires);
  }
  num("overhead.db.hashtable.lut", m.buckets);
  num("overhead.db.hashtable.rehashing", m.rehashing);
  num("overhead.total", m.overhead_total);
  num("db.dict.rehashing.count", m.rehashing_tables);
  num("keys.count", m.keys);
  num("keys.bytes-per-key", m.bytes_per_key);
  num("dataset.bytes", m.dataset);
  dbl("dataset.percentage", m.dataset_perc);
  dbl("peak.percentage", m.peak_perc);
  num("allocator.allocated", m.alloc.allocated);
  num("allocator.active", m.alloc.active);
  num("allocator.resident", m.alloc.resident);
  num("allocator.muzzy", m.alloc.muzzy);
  dbl("allocator-fragmentation.ratio", m.allocator_frag);
  sint("allocator-fragmentation.bytes", m.allocator_frag_bytes);
  dbl("allocator-rss.ratio", m.allocator_rss);
  sint("allocator-rss.bytes", m.allocator_rss_bytes);
  dbl("rss-overhead.ratio", m.rss_extra);
  sint("rss-overhead.bytes", m.rss_extra_bytes);
  dbl("fragmentation", m.total_frag);
  sint("fragmentation.bytes", m.total_frag_bytes);
}

void MemoryDoctor(Client* c) {
  c->R().Verbatim("No memory problems detected by this node's checks.\n");
}
void MemoryMallocStats(Client* c) {
  std::string text = AllocatorStatsText();
  c->R().Verbatim(text.empty() ? "Stats not supported for the current allocator\n" : text);
}
void MemoryPurge(Client* c) {
  PurgeAllocator();
  c->R().Ok();
}
void MemoryHelp(Client* c) {
  ReplyHelp(
      c, "MEMORY",
      {"DOCTOR", "    Return memory problems reports.", "MALLOC-STATS",
       "    Return internal statistics report from the memory allocator.", "PURGE",
       "    Attempt to purge dirty pages for reclamation by the allocator.", "STATS",
       "    Return information about the memory usage of the server.",
       "USAGE <key> [SAMPLES <count>]", "    Return memory in bytes used by <key> and its value."});
}

void TimeCommand(Client* c) {
  int64_t us = base::UsTime();
  auto r = c->R();
  r.ArrayLen(2);
  r.BulkInt(us / 1000000);
  r.BulkInt(us % 1000000);
}

void LastSaveCommand(Client* c) { c->R().Int(g.lastsave); }

void ShutdownCommand(Client* c) {
  bool nosave = false, save = false, now = false, force = false, abort = false;
  for (size_t i = 1; i < c->argv.size(); i++) {
    std::string o = base::ToLower(c->argv[i]);
    if (o == "nosave")
      nosave = true;
    else if (o == "save")
      save = true;
    else if (o == "now")
      now = true;
    else if (o == "force")
      force = true;
    else if (o == "abort")
      abort = true;
    else
      return c->R().Error(kErrSyntax);
  }
  if ((nosave && save) || (abort && (nosave || save || now || force)))
    return c->R().Error(kErrSyntax);
  if (abort) return AbortPendingShutdown() ? c->R().Ok() : c->R().Error("No shutdown in progress.");
  unsigned flags = 0;
  if (save) flags |= kShutdownSave;
  if (nosave) flags |= kShutdownNosave;
  if (now) flags |= kShutdownNow;
  if (force) flags |= kShutdownForce;
  StartShutdown(c, flags);
}

}  // namespace
}  // namespace cmd

namespace server {
void RegisterServerCommands(std::vector<CommandSpec>* t) {
  using namespace cmd;
  const char* g = "server";
  const uint32_t kAdm = kCmdAdmin | kCmdNoScript | kCmdLoading | kCmdStale;
  t->push_back({"info", -1, kCmdLoading | kCmdStale, InfoCommand, g, "1.0.0",
                "Reports server state and statistics.", "O(1)"});
  CommandSpec config{"config",
                     -2,
                     0,
                     nullptr,
                     g,
                     "2.0.0",
                     "Reads and changes the running configuration.",
                     "Depends on subcommand."};
  config.subcommands = {
      {"get", -3, kAdm, ConfigGetCmd, g, "2.0.0", "Reads configuration values.", "O(N)"},
      {"set", -4, kAdm, ConfigSetCmd, g, "2.0.0", "Changes configuration values at run time.",
       "O(N)"},
      {"resetstat", 2, kAdm, ConfigResetStatCmd, g, "2.0.0", "Zeroes the statistics.", "O(1)"},
      {"rewrite", 2, kAdm, ConfigRewriteCmd, g, "2.8.0",
       "Writes the running configuration to the config file.", "O(1)"},
      {"help", 2, kCmdLoading | kCmdStale, ConfigHelpCmd, g, "5.0.0",
       "Lists the CONFIG subcommands.", "O(1)"},
  };
  t->push_back(std::move(config));
  // COMMAND alone replies every command's info; its subcommands are listed as Valkey 8 lists
  // them (COMMAND LIST, COMMAND INFO COMMAND, ACL).
  const uint32_t kLs = kCmdLoading | kCmdStale;
  CommandSpec command{
      "command", -1, kLs, CommandCommand, g, "2.8.13", "Describes the commands of the server.",
      "O(N)"};
  command.subcommands = {
      {"count", 2, kLs, CommandCount, g, "2.8.13", "Counts the commands.", "O(1)"},
      {"docs", -2, kLs, CommandDocsCmd, g, "7.0.0", "Documents commands.", "O(N)"},
      {"getkeys", -3, kLs, [](Client* c) { CommandGetKeysCmd(c, false); }, g, "2.8.13",
       "The key names of a command line.", "O(N)"},
      {"getkeysandflags", -3, kLs, [](Client* c) { CommandGetKeysCmd(c, true); }, g, "7.0.0",
       "The key names of a command line with their access flags.", "O(N)"},
      {"help", 2, kLs, CommandHelpCmd, g, "5.0.0", "Lists the COMMAND subcommands.", "O(1)"},
      {"info", -2, kLs, CommandInfoCmd, g, "2.8.13", "Describes commands.", "O(N)"},
      {"list", -2, kLs, CommandListCmd, g, "7.0.0", "Names the commands.", "O(N)"},
  };
  t->push_back(std::move(command));
  t->push_back({"debug", -2, kAdm, DebugCommand, g, "1.0.0", "Debugging and testing helpers.",
                "Depends on subcommand."});
  CommandSpec memory{
      "memory", -2, 0, nullptr, g, "4.0.0", "Memory diagnostics.", "Depends on subcommand."};
  memory.subcommands = {
      {"usage", -3, kCmdReadonly, MemoryUsage, g, "4.0.0",
       "Estimates the memory of a key and its value.", "O(N)"},
      {"stats", 2, 0, MemoryStats, g, "4.0.0", "Memory usage figures.", "O(1)"},
      {"doctor", 2, 0, MemoryDoctor, g, "4.0.0", "Reports memory problems.", "O(1)"},
      {"malloc-stats", 2, 0, MemoryMallocStats, g, "4.0.0", "Allocator statistics.", "O(1)"},
      {"purge", 2, 0, MemoryPurge, g, "4.0.0", "Asks the allocator to release memory.", "O(1)"},
      {"help", 2, kCmdLoading | kCmdStale, MemoryHelp, g, "4.0.0", "Lists the MEMORY subcommands.",
       "O(1)"},
  };
  t->push_back(std::move(memory));
  t->push_back({"time", 1, kCmdLoading | kCmdStale | kCmdFast, TimeCommand, g, "2.6.0",
                "The server clock as seconds and microseconds.", "O(1)"});
  t->push_back({"lastsave", 1, kCmdLoading | kCmdStale | kCmdFast, LastSaveCommand, g, "1.0.0",
                "Unix time of the last successful save.", "O(1)"});
  t->push_back({"shutdown", -1, kAdm | kCmdNoMulti | kCmdAllowBusy, ShutdownCommand, g, "1.0.0",
                "Stops the server.", "O(N)"});
}
}  // namespace server
