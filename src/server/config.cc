// Config table, file parser, CONFIG GET/SET/REWRITE.
#include "server/config.h"

#include <arpa/inet.h>
#include <unistd.h>

#include <cctype>
#include <climits>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "base/glob.h"
#include "base/log.h"
#include "base/util.h"
#include "server/acl.h"
#include "db/hash.h"
#include "db/list.h"
#include "db/set.h"
#include "db/stream.h"
#include "db/zset.h"
#include "net/resp_parser.h"
#include "server/command.h"
#include "server/aof.h"
#include "server/cluster_hooks.h"
#include "server/crash_report.h"
#include "server/evict.h"
#include "server/loading.h"
#include "server/notify.h"
#include "server/proc_title.h"
#include "server/repl_hooks.h"
#include "server/shutdown.h"
#include "server/server.h"
#include "server/version.h"

namespace server {

Config cfg;

namespace {

enum Kind { kBool, kInt, kMem, kStr, kEnum, kSpecial };
// kImmutable: CONFIG SET refuses it. kProtectedConfig: CONFIG SET refuses it unless
// enable-protected-configs allows the client. kHidden: CONFIG GET patterns skip it.
// kDenyLoading: CONFIG SET answers -LOADING while the data set loads (Valkey 8's
// DENY_LOADING_CONFIG: what the load reads). Valkey 8 denies appendonly too; ours takes it and
// starts the AOF once the load ends (integration/loading.tcl). kEmptyChecked: a directive
// with no value goes to its setter, whose error names the values (Valkey 8's multi-word enums).
enum Flags : unsigned {
  kImmutable = 1,
  kProtectedConfig = 2,
  kHidden = 4,
  kDenyLoading = 8,
  kEmptyChecked = 16
};

struct Special {
  bool (*set)(const std::vector<std::string>& args, std::string* err);
  std::string (*get)();
};

struct Def {
  const char* name;
  const char* alias;
  Kind kind;
  unsigned flags;
  void* ptr;
  int64_t min, max;
  const char* const* enums;  // nullptr-terminated, for kEnum
  Special special;
  bool (*apply)(std::string* err);
  const char* deflt;  // documented default (valkey.conf text)
  // Checks a string value before it is stored (file and CONFIG SET alike).
  bool (*validate)(const std::string& v, std::string* err) = nullptr;
};

const char* const kLogLevels[] = {"debug", "verbose", "notice", "warning", "nothing", nullptr};
const char* const kDebugCmd[] = {"no", "yes", "local", nullptr};  // also protected configs
const char* const kPubsubDefault[] = {"allchannels", "resetchannels", nullptr};
const char* const kDisklessLoad[] = {"disabled", "on-empty-db", "swapdb", nullptr};
const char* const kPropagationErrorBehavior[] = {"ignore", "panic", "panic-on-replicas", nullptr};
const char* const kAppendFsync[] = {"always", "everysec", "no", nullptr};
const char* const kMaxmemoryPolicies[] = {"volatile-lru",   "volatile-lfu",   "volatile-random",
                                          "volatile-ttl",   "allkeys-lru",    "allkeys-lfu",
                                          "allkeys-random", "noeviction",     nullptr};
const char* const kEndpointTypes[] = {"ip", "hostname", "unknown-endpoint", nullptr};

bool SetReplicaof(const std::vector<std::string>& raw, std::string* err) {
  std::vector<std::string> a;
  for (auto& x : raw) {
    std::istringstream is(x);
    for (std::string w; is >> w;) a.push_back(w);
  }
  if (a.size() == 2 && base::EqualsNoCase(a[0], "no") && base::EqualsNoCase(a[1], "one")) {
    cfg.replicaof.clear();
    return true;
  }
  if (a.size() != 2) {
    *err = "wrong number of arguments";
    return false;
  }
  int64_t port;
  if (!base::ParseInt64(a[1], &port) || port < 0 || port > 65535) {
    *err = "Invalid primary port";
    return false;
  }
  cfg.replicaof = a[0] + " " + a[1];
  return true;
}
// The primary this node replicates now (REPLICAOF changes it), as Valkey 8's getter: CONFIG
// GET shows it and CONFIG REWRITE saves it, so a restart keeps following that primary.
std::string GetReplicaof() {
  std::string a = Repl().primary_address();
  size_t colon = a.rfind(':');
  if (colon == std::string::npos) return "";
  return a.substr(0, colon) + " " + a.substr(colon + 1);
}

// maxmemory-clients: a memory value, or a percentage of maxmemory ("10%", kept negative).
bool SetMaxmemoryClients(const std::vector<std::string>& a, std::string* err) {
  if (a.size() != 1) {
    *err = "wrong number of arguments";
    return false;
  }
  const std::string& v = a[0];
  int64_t pct;
  if (v.size() > 1 && v.back() == '%' && base::ParseInt64(v.substr(0, v.size() - 1), &pct) &&
      pct >= 0) {
    if (pct > 100) {
      *err = "percentage argument must be less or equal to 100";
      return false;
    }
    cfg.maxmemory_clients = -pct;
    return true;
  }
  auto m = base::ParseMemory(v);
  if (!m || v[0] == '-') {
    *err = "argument must be a memory or percent value";
    return false;
  }
  cfg.maxmemory_clients = *m;
  return true;
}
std::vector<std::string> Words(const std::vector<std::string>& args);  // below


// latency-tracking-info-percentiles: numbers in [0, 100] ("" for none), shown as Valkey 8
// prints them (%f with the trailing zeros and dot trimmed).
bool SetLatencyPercentiles(const std::vector<std::string>& a, std::string* err) {
  std::vector<double> ps;
  for (const std::string& w : Words(a)) {
    double p;
    if (!base::ParseDouble(w, &p)) {
      *err = "Invalid latency-tracking-info-percentiles parameters";
      return false;
    }
    if (p > 100.0 || p < 0.0) {
      *err = "latency-tracking-info-percentiles parameters should sit between [0.0,100.0]";
      return false;
    }
    ps.push_back(p);
  }
  cfg.latency_tracking_info_percentiles = std::move(ps);
  return true;
}
std::string GetLatencyPercentiles() {
  std::string out;
  for (double p : cfg.latency_tracking_info_percentiles) {
    if (!out.empty()) out += ' ';
    out += FormatPercentile(p);
  }
  return out;
}

std::string GetMaxmemoryClients() {
  return cfg.maxmemory_clients < 0 ? std::to_string(-cfg.maxmemory_clients) + "%"
                                   : std::to_string(cfg.maxmemory_clients);
}

// "a b" given as one quoted argument counts as two words, as in Valkey.
std::vector<std::string> Words(const std::vector<std::string>& args) {
  std::vector<std::string> w;
  for (auto& a : args) {
    std::istringstream is(a);
    for (std::string x; is >> x;) w.push_back(x);
  }
  return w;
}

bool SetBind(const std::vector<std::string>& raw, std::string* err) {
  std::vector<std::string> args = Words(raw);
  if (args.size() > 16) {
    *err = "Too many bind addresses specified.";
    return false;
  }
  cfg.bind = args;
  return true;
}
std::string GetBind() {
  std::string r;
  for (auto& b : cfg.bind) r += (r.empty() ? "" : " ") + b;
  return r;
}

bool ParseLimitClass(const std::string& name, OutputLimit** out) {
  std::string n = base::ToLower(name);
  if (n == "normal")
    *out = &cfg.obuf_normal;
  else if (n == "replica" || n == "slave")
    *out = &cfg.obuf_replica;
  else if (n == "pubsub")
    *out = &cfg.obuf_pubsub;
  else
    return false;
  return true;
}
bool SetObufLimit(const std::vector<std::string>& raw, std::string* err) {
  std::vector<std::string> args = Words(raw);
  if (args.size() % 4 != 0 || args.empty()) {
    *err = "Wrong number of arguments in buffer limit configuration.";
    return false;
  }
  std::vector<std::pair<OutputLimit*, OutputLimit>> staged;
  for (size_t i = 0; i < args.size(); i += 4) {
    OutputLimit* cls;
    if (!ParseLimitClass(args[i], &cls)) {
      *err = "Invalid client class specified in buffer limit configuration.";
      return false;
    }
    auto hard = base::ParseMemory(args[i + 1]);
    auto soft = base::ParseMemory(args[i + 2]);
    int64_t secs;
    if (!hard || !soft || !base::ParseInt64(args[i + 3], &secs) || secs < 0) {
      *err = "Error in hard, soft or soft_seconds setting in buffer limit configuration.";
      return false;
    }
    staged.push_back({cls, OutputLimit{*hard, *soft, secs}});
  }
  for (auto& [cls, v] : staged) *cls = v;
  return true;
}
std::string GetObufLimit() {
  auto fmt = [](const char* n, const OutputLimit& l) {
    return std::string(n) + " " + std::to_string(l.hard) + " " + std::to_string(l.soft) + " " +
           std::to_string(l.soft_seconds);
  };
  return fmt("normal", cfg.obuf_normal) + " " + fmt("slave", cfg.obuf_replica) + " " +
         fmt("pubsub", cfg.obuf_pubsub);
}

// notify-keyspace-events: stored as flags; CONFIG GET shows Valkey's normalised letters.
bool SetNotifyEvents(const std::vector<std::string>& args, std::string* err) {
  if (args.size() > 1) {
    *err = "wrong number of arguments";
    return false;
  }
  int f = ParseNotifyFlags(args.empty() ? "" : args[0]);
  if (f < 0) {
    *err = "Invalid event class character. Use 'Ag$lshzxeKEtmdn'.";
    return false;
  }
  g_notify_flags = f;
  return true;
}
std::string GetNotifyEvents() { return FormatNotifyFlags(g_notify_flags); }

bool SetSave(const std::vector<std::string>& args, std::string* err) {
  // "" disables; otherwise pairs of seconds / changes.
  std::vector<std::string> a;
  for (auto& s : args) {
    std::istringstream is(s);
    std::string w;
    while (is >> w) a.push_back(w);
  }
  if (a.size() % 2 != 0) {
    *err = "Invalid save parameters";
    return false;
  }
  for (auto& w : a) {
    int64_t v;
    if (!base::ParseInt64(w, &v) || v < 0) {
      *err = "Invalid save parameters";
      return false;
    }
  }
  std::string r;
  for (auto& w : a) r += (r.empty() ? "" : " ") + w;
  cfg.save = r;
  return true;
}
std::string GetSave() { return cfg.save; }

bool SetDir(const std::vector<std::string>& args, std::string* err) {
  if (args.size() != 1) {
    *err = "wrong number of arguments";
    return false;
  }
  if (chdir(args[0].c_str()) == -1) {
    *err = std::string("No such file or directory");
    return false;
  }
  return true;
}
std::string GetDir() {
  char buf[4096];
  return getcwd(buf, sizeof(buf)) ? std::string(buf) : std::string();
}

bool ApplyLogLevel(std::string*) {
  base::SetLogLevel(cfg.loglevel);
  return true;
}
bool ApplyTypeLimits(std::string*) {
  db::GetHashLimits() = {static_cast<size_t>(cfg.hash_max_listpack_entries),
                         static_cast<size_t>(cfg.hash_max_listpack_value)};
  db::GetSetLimits() = {static_cast<size_t>(cfg.set_max_intset_entries),
                        static_cast<size_t>(cfg.set_max_listpack_entries),
                        static_cast<size_t>(cfg.set_max_listpack_value)};
  db::GetZSetLimits() = {static_cast<size_t>(cfg.zset_max_listpack_entries),
                         static_cast<size_t>(cfg.zset_max_listpack_value)};
  db::GetListLimits() = {static_cast<int>(cfg.list_max_listpack_size),
                         static_cast<int>(cfg.list_compress_depth)};
  db::GetStreamLimits() = {cfg.stream_node_max_bytes, cfg.stream_node_max_entries};
  return true;
}

bool ApplyBacklogSize(std::string*) {
  Repl().resize_backlog();
  return true;
}

bool ApplyBusyPoll(std::string*) {
  if (g.loop) g.loop->SetSpinUs(cfg.busy_poll_us);
  return true;
}

// CONFIG SET bind/port: listen on the new addresses now, so the node never listens on more
// than the operator last asked for.
bool ApplyListen(std::string* err) {
  if (!g.loop) return true;
  return RebindTcp(err);
}
bool ApplyPort(std::string* err) {
  if (ApplyListen(err)) return true;
  *err = "Unable to listen on this port. Check server logs.";  // Valkey 8's text for port
  return false;
}

// File names inside dir are never paths (else CONFIG SET could write anywhere).
bool ValidBaseName(std::string_view directive, const std::string& v, const char* what,
                   std::string* err) {
  if (v.empty()) {
    *err = std::string(directive) + " can't be empty";
    return false;
  }
  if (v.find_first_of("/\\") != std::string::npos) {
    *err = std::string(directive) + " can't be a path, just a " + what;
    return false;
  }
  return true;
}
bool ValidClusterConfigFile(const std::string& v, std::string* err) {
  if (v.empty()) {
    *err = "cluster-config-file can't be empty";
    return false;
  }
  return true;
}
// An announced client address must parse as one of its family (empty: none announced), as
// Valkey 8's isValidIpV4 / isValidIpV6.
bool ValidIpOf(int family, const char* what, const std::string& v, std::string* err) {
  unsigned char buf[sizeof(in6_addr)];
  if (v.empty() || inet_pton(family, v.c_str(), buf) == 1) return true;
  *err = what;
  return false;
}
bool ValidClientIpv4(const std::string& v, std::string* err) {
  return ValidIpOf(AF_INET, "Invalid IPv4 address", v, err);
}
bool ValidClientIpv6(const std::string& v, std::string* err) {
  return ValidIpOf(AF_INET6, "Invalid IPv6 address", v, err);
}
// Announced names travel in ping extensions and nodes.conf: Valkey 8's isValidAnnouncedHostname
// (under 256 characters of [A-Za-z0-9.-]) and isValidAnnouncedNodename (no character of its
// aux-field invalid set).
bool ValidAnnouncedHostname(const std::string& v, std::string* err) {
  if (v.size() >= 256) {
    *err = "Hostnames must be less than 256 characters";
    return false;
  }
  for (char ch : v) {
    if (!isalnum(static_cast<unsigned char>(ch)) && ch != '-' && ch != '.') {
      *err = "Hostnames may only contain alphanumeric characters, hyphens or dots";
      return false;
    }
  }
  return true;
}
bool ValidAnnouncedNodename(const std::string& v, std::string* err) {
  if (v.find_first_of("!#$%&()*+;<>?@[]^{|}~") == std::string::npos) return true;
  *err = "Announced human node name contained invalid character";
  return false;
}
bool ValidDbFilename(const std::string& v, std::string* err) {
  return ValidBaseName("dbfilename", v, "filename", err);
}
bool ValidAppendFilename(const std::string& v, std::string* err) {
  return ValidBaseName("appendfilename", v, "filename", err);
}
bool ValidAppendDirname(const std::string& v, std::string* err) {
  return ValidBaseName("appenddirname", v, "dirname", err);
}

// CONFIG SET appendonly: a rewrite starts the file, or the file is closed (at start the
// config file's value is acted on by the load).
bool ApplyAppendonly(std::string* err) {
  if (!g.loop) return true;
  if (cfg.appendonly && !AofActive()) {
    if (!AofTurnOn(err)) {
      cfg.appendonly = false;
      return false;
    }
  } else if (!cfg.appendonly && AofActive()) {
    AofTurnOff();
  }
  return true;
}

// The keyspace environment follows the policy (LFU counters) and the lazyfree-lazy-expire and
// -server-del choices (how the keys they cover are freed) at once.
bool ApplyKeyspaceEnv(std::string*) {
  RefreshDerivedConfig();
  return true;
}

// Lowering maxmemory below the memory in use starts evicting in the next event loop round,
// as in Valkey (the CONFIG SET reply goes first).
bool ApplyMaxmemory(std::string*) {
  if (!g.loop) return true;  // at start: checked once the log is open
  if (!cfg.maxmemory) {
    PerformEvictions();  // ends the exceeded-time count
    return true;
  }
  uint64_t used = UsedMemory(), not_counted = MemoryNotCountedForEvict();
  used = used > not_counted ? used - not_counted : 0;
  if (static_cast<uint64_t>(cfg.maxmemory) < used)
    LOG_WARNING(
        "WARNING: the new maxmemory value set via CONFIG SET (%llu) is smaller than the current "
        "memory usage (%llu). This will result in key eviction and/or the inability to accept "
        "new write commands depending on the maxmemory-policy.",
        static_cast<unsigned long long>(cfg.maxmemory), static_cast<unsigned long long>(used));
  StartEviction();
  return true;
}

// requirepass is the default user's one password (empty: nopass), as ACL rules set it.
bool ApplyRequirePass(std::string*) {
  acl::SetRequirePass(cfg.requirepass);
  return true;
}

bool ApplyHz(std::string*) {
  if (cfg.hz < 1) cfg.hz = 1;
  if (cfg.hz > 500) cfg.hz = 500;
  return true;
}

const char* const kOomScoreAdj[] = {"no", "yes", "relative", "absolute", nullptr};

// oom-score-adj-values: three numbers (primary, replica, forked child), in one argument or
// three (a config file line, a rollback).
bool SetOomScoreAdjValues(const std::vector<std::string>& args, std::string* err) {
  std::vector<std::string> w;
  for (auto& a : args) {
    std::istringstream is(a);
    for (std::string x; is >> x;) w.push_back(x);
  }
  if (w.size() != 3) {
    *err = "wrong number of arguments";
    return false;
  }
  int v[3];
  for (int i = 0; i < 3; i++) {
    int64_t n;
    if (!base::ParseInt64(w[i], &n) || n < -2000 || n > 2000) {
      *err = "Invalid oom-score-adj-values, elements must be between -2000 and 2000.";
      return false;
    }
    v[i] = static_cast<int>(n);
  }
  if (v[kOomReplica] < v[kOomPrimary] || v[kOomBgChild] < v[kOomReplica])
    LOG_WARNING(
        "The oom-score-adj-values configuration may not work for non-privileged processes! "
        "Please consult the documentation.");
  for (int i = 0; i < 3; i++) cfg.oom_score_adj.values[i] = v[i];
  return true;
}

// shutdown-on-sigint / shutdown-on-sigterm: words of SHUTDOWN's flags, read and written as
// Valkey 8 does (its order when written, "default" for none).
const std::pair<const char*, unsigned> kShutdownSigFlags[] = {
    {"default", 0}, {"save", kShutdownSave}, {"nosave", kShutdownNosave},
    {"now", kShutdownNow}, {"force", kShutdownForce}};

bool ParseShutdownSigFlags(const std::vector<std::string>& args, unsigned* out, std::string* err) {
  std::vector<std::string> words;
  for (auto& a : args) {
    std::istringstream is(a);
    for (std::string w; is >> w;) words.push_back(w);
  }
  unsigned flags = 0;
  bool all_known = !words.empty();
  for (auto& w : words) {
    bool known = false;
    for (auto& [name, bit] : kShutdownSigFlags)
      if (base::EqualsNoCase(w, name)) {
        flags |= bit;
        known = true;
      }
    all_known = all_known && known;
  }
  if (!all_known) {
    *err = "argument(s) must be one of the following: default, save, nosave, now, force";
    return false;
  }
  if ((flags & kShutdownSave) && (flags & kShutdownNosave)) {
    *err = "shutdown options SAVE and NOSAVE can't be used simultaneously";
    return false;
  }
  *out = flags;
  return true;
}

std::string ShutdownSigFlagsText(unsigned flags) {
  std::string s;
  for (auto& [name, bit] : kShutdownSigFlags)
    if (bit & flags) s += (s.empty() ? "" : " ") + std::string(name);
  return s.empty() ? "default" : s;
}

bool SetShutdownOnSigint(const std::vector<std::string>& a, std::string* err) {
  return ParseShutdownSigFlags(a, &cfg.shutdown_on_sigint, err);
}
bool SetShutdownOnSigterm(const std::vector<std::string>& a, std::string* err) {
  return ParseShutdownSigFlags(a, &cfg.shutdown_on_sigterm, err);
}
std::string GetShutdownOnSigint() { return ShutdownSigFlagsText(cfg.shutdown_on_sigint); }
std::string GetShutdownOnSigterm() { return ShutdownSigFlagsText(cfg.shutdown_on_sigterm); }

std::string GetOomScoreAdjValues() {
  const int* v = cfg.oom_score_adj.values;
  return std::to_string(v[0]) + " " + std::to_string(v[1]) + " " + std::to_string(v[2]);
}

bool ApplyOomScoreAdj(std::string* err) {
  int& mode = cfg.oom_score_adj.mode;
  if (mode == kOomScoreAdjRelativeChoice) mode = kOomScoreAdjRelative;
  if (SetOomScoreAdj(cfg.oom_score_adj, -1)) return true;
  *err = "Failed to set current oom_score_adj. Check server logs.";
  return false;
}

bool ValidProcTitleTemplate(const std::string& tmpl, std::string* err) {
  std::string out;
  if (ExpandProcTitle(tmpl, ProcTitleVarsNow(""), &out) && !out.empty()) return true;
  *err = "template format is invalid or contains unknown variables";
  return false;
}

bool ApplyProcTitle(std::string*) {
  SetProcTitle();
  return true;
}

bool ApplyJemallocBgThread(std::string*) {
  SetAllocatorBackgroundThread(cfg.jemalloc_bg_thread);
  return true;
}

bool ApplyClusterAnnounce(std::string*) {
  Cluster().announce_changed();
  return true;
}

// The casts make a field of the wrong type a compile error (the table stores void*).
#define BOOL(n, field, dflt, fl) \
  { n, nullptr, kBool, fl, static_cast<bool*>(&cfg.field), 0, 0, nullptr, {}, nullptr, dflt }
#define INT(n, field, lo, hi, dflt, fl) \
  { n, nullptr, kInt, fl, static_cast<int64_t*>(&cfg.field), lo, hi, nullptr, {}, nullptr, dflt }
#define MEM(n, field, lo, hi, dflt, fl) \
  { n, nullptr, kMem, fl, static_cast<int64_t*>(&cfg.field), lo, hi, nullptr, {}, nullptr, dflt }
#define STR(n, field, dflt, fl) \
  { n, nullptr, kStr, fl, static_cast<std::string*>(&cfg.field), 0, 0, nullptr, {}, nullptr, dflt }
// The announced address, ports and names of a cluster node.
#define ANNOUNCE_STR(n, field) \
  { n, nullptr, kStr, 0, static_cast<std::string*>(&cfg.field), 0, 0, nullptr, {}, ApplyClusterAnnounce, "" }
#define ANNOUNCE_CHECKED(n, field, valid)                                          \
  {                                                                                \
    n, nullptr, kStr, 0, static_cast<std::string*>(&cfg.field), 0, 0, nullptr, {}, \
        ApplyClusterAnnounce, "", valid                                            \
  }
#define ANNOUNCE_PORT(n, field) \
  { n, nullptr, kInt, 0, static_cast<int64_t*>(&cfg.field), 0, 65535, nullptr, {}, ApplyClusterAnnounce, "0" }

std::vector<Def>& Table() {
  static std::vector<Def> t = {
      {"bind",
       nullptr,
       kSpecial,
       0,
       nullptr,
       0,
       0,
       nullptr,
       {SetBind, GetBind},
       ApplyListen,
       "* -::*"},
      {"port", nullptr, kInt, 0, &cfg.port, 0, 65535, nullptr, {}, ApplyPort, "6379"},
      STR("unixsocket", unixsocket, "", kImmutable),
      STR("bind-source-addr", bind_source_addr, "", 0),
      INT("unixsocketperm", unixsocketperm, 0, 0777, "0", kImmutable),
      STR("unixsocketgroup", unixsocketgroup, "", kImmutable),
      STR("hash-seed", hash_seed, "", kImmutable | kHidden),
      BOOL("protected-mode", protected_mode, "yes", 0),
      INT("maxclients", maxclients, 1, UINT32_MAX, "10000", 0),
      INT("timeout", timeout, 0, INT_MAX, "0", 0),
      INT("tcp-keepalive", tcp_keepalive, 0, INT_MAX, "300", 0),
      INT("tcp-backlog", tcp_backlog, 0, INT_MAX, "511", kImmutable),
      BOOL("daemonize", daemonize, "no", kImmutable),
      STR("pidfile", pidfile, "", kImmutable),
      STR("logfile", logfile, "", kImmutable),
      {"loglevel", nullptr, kEnum, 0, &cfg.loglevel, 0, 0, kLogLevels, {}, ApplyLogLevel, "notice"},
      {"dir",
       nullptr,
       kSpecial,
       kProtectedConfig | kDenyLoading,
       nullptr,
       0,
       0,
       nullptr,
       {SetDir, GetDir},
       nullptr,
       "./"},
      BOOL("always-show-logo", always_show_logo, "no", kImmutable),
      BOOL("hide-user-data-from-log", hide_user_data_from_log, "yes", 0),
      {"crash-log-enabled", nullptr, kBool, 0, &cfg.crash_log_enabled, 0, 0, nullptr, {},
       [](std::string*) {
         HandleFatalSignals(cfg.crash_log_enabled);
         return true;
       },
       "yes"},
      {"watchdog-period", nullptr, kInt, kHidden, &cfg.watchdog_period, 0, INT_MAX, nullptr, {},
       [](std::string*) {
         ArmWatchdog(cfg.watchdog_period, cfg.hz);  // now, not at the next tick
         return true;
       },
       "0"},
      INT("databases", databases, 1, INT_MAX, "16", kImmutable),
      {"hz", nullptr, kInt, 0, &cfg.hz, 0, INT_MAX, nullptr, {}, ApplyHz, "10"},
      BOOL("dynamic-hz", dynamic_hz, "yes", 0),
      BOOL("io-uring", io_uring, "yes", kImmutable),
      {"busy-poll-us",
       nullptr,
       kInt,
       0,
       &cfg.busy_poll_us,
       0,
       1000,
       nullptr,
       {},
       ApplyBusyPoll,
       "200"},
      {"enable-debug-command",
       nullptr,
       kEnum,
       kImmutable,
       &cfg.enable_debug_command,
       0,
       0,
       kDebugCmd,
       {},
       nullptr,
       "no"},
      {"enable-protected-configs",
       nullptr,
       kEnum,
       kImmutable,
       &cfg.enable_protected_configs,
       0,
       0,
       kDebugCmd,
       {},
       nullptr,
       "no"},
      MEM("proto-max-bulk-len", proto_max_bulk_len, 1024 * 1024, INT64_MAX, "512mb", 0),
      MEM("client-query-buffer-limit", client_query_buffer_limit, 1024 * 1024, INT64_MAX, "1gb", 0),
      {"client-output-buffer-limit",
       nullptr,
       kSpecial,
       0,
       nullptr,
       0,
       0,
       nullptr,
       {SetObufLimit, GetObufLimit},
       nullptr,
       "normal 0 0 0 replica 256mb 64mb 60 pubsub 32mb 8mb 60"},
      {"requirepass", nullptr, kStr, 0, &cfg.requirepass, 0, 0, nullptr, {}, ApplyRequirePass, ""},
      STR("aclfile", aclfile, "", kImmutable),
      INT("acllog-max-len", acllog_max_len, 0, LONG_MAX, "128", 0),
      INT("tracking-table-max-keys", tracking_table_max_keys, 0, LONG_MAX, "1000000", 0),
      {"acl-pubsub-default", nullptr, kEnum, 0, &cfg.acl_pubsub_default, 0, 0, kPubsubDefault, {},
       nullptr, "resetchannels"},
      INT("client-default-resp", client_default_resp, 2, 3, "2", kImmutable | kHidden),
      INT("active-expire-effort", active_expire_effort, 1, 10, "1", 0),
      BOOL("activerehashing", activerehashing, "yes", 0),
      BOOL("extended-redis-compatibility", extended_redis_compat, "no", 0),
      BOOL("set-proc-title", set_proc_title, "yes", kImmutable),
      {"proc-title-template", nullptr, kStr, 0, static_cast<std::string*>(&cfg.proc_title_template),
       0, 0, nullptr, {}, ApplyProcTitle, "{title} {listen-addr} {server-mode}",
       ValidProcTitleTemplate},
      INT("slowlog-log-slower-than", slowlog_log_slower_than, -1, INT64_MAX, "10000", 0),
      INT("slowlog-max-len", slowlog_max_len, 0, LONG_MAX, "128", 0),
      INT("latency-monitor-threshold", latency_monitor_threshold, 0, LLONG_MAX, "0", 0),
      {"maxmemory", nullptr, kMem, 0, &cfg.maxmemory, 0, INT64_MAX, nullptr, {},
       ApplyMaxmemory, "0"},
      {"maxmemory-clients", nullptr, kSpecial, 0, nullptr, 0, 0, nullptr,
       {SetMaxmemoryClients, GetMaxmemoryClients}, nullptr, "0"},
      {"maxmemory-policy", nullptr, kEnum, 0, &cfg.maxmemory_policy, 0, 0, kMaxmemoryPolicies,
       {}, ApplyKeyspaceEnv, "noeviction"},
      INT("maxmemory-samples", maxmemory_samples, 1, 64, "5", 0),
      INT("maxmemory-eviction-tenacity", maxmemory_eviction_tenacity, 0, 100, "10", 0),
      {"replica-ignore-maxmemory", "slave-ignore-maxmemory", kBool, 0,
       &cfg.replica_ignore_maxmemory, 0, 0, nullptr, {}, nullptr, "yes"},
      {"replica-lazy-flush", "slave-lazy-flush", kBool, 0, &cfg.replica_lazy_flush, 0, 0,
       nullptr, {}, nullptr, "yes"},
      {"lfu-log-factor", nullptr, kInt, 0, &cfg.lfu_log_factor, 0, INT_MAX, nullptr, {},
       ApplyKeyspaceEnv, "10"},
      {"lfu-decay-time", nullptr, kInt, 0, &cfg.lfu_decay_time, 0, INT_MAX, nullptr, {},
       ApplyKeyspaceEnv, "1"},
      {"jemalloc-bg-thread", nullptr, kBool, 0, &cfg.jemalloc_bg_thread, 0, 0, nullptr, {},
       ApplyJemallocBgThread, "yes"},
      {"oom-score-adj", nullptr, kEnum, 0, &cfg.oom_score_adj.mode, 0, 0, kOomScoreAdj, {},
       ApplyOomScoreAdj, "no"},
      {"oom-score-adj-values", nullptr, kSpecial, 0, nullptr, 0, 0, nullptr,
       {SetOomScoreAdjValues, GetOomScoreAdjValues}, ApplyOomScoreAdj, "0 200 800"},
      BOOL("lazyfree-lazy-user-del", lazyfree_lazy_user_del, "yes", 0),
      BOOL("latency-tracking", latency_tracking, "yes", 0),
      {"latency-tracking-info-percentiles", nullptr, kSpecial, 0, nullptr, 0, 0, nullptr,
       {SetLatencyPercentiles, GetLatencyPercentiles}, nullptr, "50 99 99.9"},
      BOOL("lazyfree-lazy-user-flush", lazyfree_lazy_user_flush, "yes", 0),
      BOOL("lazyfree-lazy-eviction", lazyfree_lazy_eviction, "yes", 0),
      {"lazyfree-lazy-expire", nullptr, kBool, 0, &cfg.lazyfree_lazy_expire, 0, 0, nullptr, {},
       ApplyKeyspaceEnv, "yes"},
      {"lazyfree-lazy-server-del", nullptr, kBool, 0, &cfg.lazyfree_lazy_server_del, 0, 0,
       nullptr, {}, ApplyKeyspaceEnv, "yes"},
      BOOL("cluster-enabled", cluster_enabled, "no", kImmutable),
      {"cluster-config-file",
       nullptr,
       kStr,
       kImmutable,
       &cfg.cluster_config_file,
       0,
       0,
       nullptr,
       {},
       nullptr,
       "nodes.conf",
       ValidClusterConfigFile},
      INT("cluster-port", cluster_port, 0, 65535, "0", kImmutable),
      INT("cluster-node-timeout", cluster_node_timeout, 0, INT64_MAX, "15000", 0),
      INT("cluster-ping-interval", cluster_ping_interval, 0, INT64_MAX, "0", kHidden),
      ANNOUNCE_STR("cluster-announce-ip", cluster_announce_ip),
      ANNOUNCE_CHECKED("cluster-announce-hostname", cluster_announce_hostname,
                       ValidAnnouncedHostname),
      ANNOUNCE_CHECKED("cluster-announce-human-nodename", cluster_announce_human_nodename,
                       ValidAnnouncedNodename),
      ANNOUNCE_CHECKED("cluster-announce-client-ipv4", cluster_announce_client_ipv4,
                       ValidClientIpv4),
      ANNOUNCE_CHECKED("cluster-announce-client-ipv6", cluster_announce_client_ipv6,
                       ValidClientIpv6),
      ANNOUNCE_PORT("cluster-announce-port", cluster_announce_port),
      ANNOUNCE_PORT("cluster-announce-bus-port", cluster_announce_bus_port),
      ANNOUNCE_PORT("cluster-announce-tls-port", cluster_announce_tls_port),
      {"cluster-preferred-endpoint-type",
       nullptr,
       kEnum,
       0,
       &cfg.cluster_preferred_endpoint_type,
       0,
       0,
       kEndpointTypes,
       {},
       nullptr,
       "ip"},
      BOOL("cluster-require-full-coverage", cluster_require_full_coverage, "yes", 0),
      BOOL("cluster-allow-reads-when-down", cluster_allow_reads_when_down, "no", 0),
      BOOL("cluster-allow-replica-migration", cluster_allow_replica_migration, "yes", 0),
      BOOL("cluster-allow-pubsubshard-when-down", cluster_allow_pubsubshard_when_down, "yes", 0),
      BOOL("cluster-slot-stats-enabled", cluster_slot_stats_enabled, "no", 0),
      INT("cluster-slot-migration-log-max-len", cluster_slot_migration_log_max_len, 0, INT64_MAX,
          "1000", 0),
      {"cluster-replica-no-failover",
       "cluster-slave-no-failover",
       kBool,
       0,
       &cfg.cluster_replica_no_failover,
       0,
       0,
       nullptr,
       {},
       nullptr,
       "no"},
      MEM("cluster-link-sendbuf-limit", cluster_link_sendbuf_limit, 0, INT64_MAX, "0", 0),
      INT("cluster-blacklist-ttl", cluster_blacklist_ttl, 0, INT64_MAX, "60", 0),
      {"repl-backlog-size",
       nullptr,
       kMem,
       0,
       &cfg.repl_backlog_size,
       1,
       INT64_MAX,
       nullptr,
       {},
       ApplyBacklogSize,
       "10mb"},
      {"repl-backlog-ttl",
       nullptr,
       kInt,
       0,
       &cfg.repl_backlog_ttl,
       0,
       INT64_MAX,
       nullptr,
       {},
       nullptr,
       "3600"},
      BOOL("repl-diskless-sync", repl_diskless_sync, "yes", 0),
      {"repl-diskless-sync-delay",
       nullptr,
       kInt,
       0,
       &cfg.repl_diskless_sync_delay,
       0,
       INT_MAX,
       nullptr,
       {},
       nullptr,
       "5"},
      INT("repl-diskless-sync-max-replicas", repl_diskless_sync_max_replicas, 0, INT_MAX, "0", 0),
      {"repl-diskless-load",
       nullptr,
       kEnum,
       kDenyLoading,
       &cfg.repl_diskless_load,
       0,
       0,
       kDisklessLoad,
       {},
       nullptr,
       "disabled"},
      {"propagation-error-behavior",
       nullptr,
       kEnum,
       0,
       &cfg.propagation_error_behavior,
       0,
       0,
       kPropagationErrorBehavior,
       {},
       nullptr,
       "ignore"},
      {"replica-read-only",
       "slave-read-only",
       kBool,
       0,
       &cfg.replica_read_only,
       0,
       0,
       nullptr,
       {},
       nullptr,
       "yes"},
      {"replica-serve-stale-data",
       "slave-serve-stale-data",
       kBool,
       0,
       &cfg.replica_serve_stale_data,
       0,
       0,
       nullptr,
       {},
       nullptr,
       "yes"},
      {"min-replicas-to-write",
       "min-slaves-to-write",
       kInt,
       0,
       &cfg.min_replicas_to_write,
       0,
       INT_MAX,
       nullptr,
       {},
       nullptr,
       "0"},
      {"min-replicas-max-lag",
       "min-slaves-max-lag",
       kInt,
       0,
       &cfg.min_replicas_max_lag,
       0,
       INT_MAX,
       nullptr,
       {},
       nullptr,
       "10"},
      {"cluster-replica-validity-factor",
       "cluster-slave-validity-factor",
       kInt,
       0,
       &cfg.cluster_replica_validity_factor,
       0,
       INT_MAX,
       nullptr,
       {},
       nullptr,
       "10"},
      {"cluster-migration-barrier",
       nullptr,
       kInt,
       0,
       &cfg.cluster_migration_barrier,
       0,
       INT_MAX,
       nullptr,
       {},
       nullptr,
       "1"},
      {"repl-timeout", nullptr, kInt, 0, &cfg.repl_timeout, 1, INT_MAX, nullptr, {}, nullptr, "60"},
      {"shutdown-timeout", nullptr, kInt, 0, &cfg.shutdown_timeout, 0, INT_MAX, nullptr, {}, nullptr,
       "10"},
      {"shutdown-on-sigint", nullptr, kSpecial, kEmptyChecked, nullptr, 0, 0, nullptr,
       {SetShutdownOnSigint, GetShutdownOnSigint}, nullptr, "default"},
      {"shutdown-on-sigterm", nullptr, kSpecial, kEmptyChecked, nullptr, 0, 0, nullptr,
       {SetShutdownOnSigterm, GetShutdownOnSigterm}, nullptr, "default"},
      {"repl-ping-replica-period",
       "repl-ping-slave-period",
       kInt,
       0,
       &cfg.repl_ping_replica_period,
       1,
       INT_MAX,
       nullptr,
       {},
       nullptr,
       "10"},
      {"primaryauth", "masterauth", kStr, 0, &cfg.primaryauth, 0, 0, nullptr, {}, nullptr, ""},
      {"primaryuser", "masteruser", kStr, 0, &cfg.primaryuser, 0, 0, nullptr, {}, nullptr, ""},
      {"replicaof",
       "slaveof",
       kSpecial,
       kImmutable,
       nullptr,
       0,
       0,
       nullptr,
       {SetReplicaof, GetReplicaof},
       nullptr,
       ""},
      MEM("hll-sparse-max-bytes", hll_sparse_max_bytes, 0, INT64_MAX, "3000", 0),
      {"hash-max-listpack-entries",
       "hash-max-ziplist-entries",
       kInt,
       0,
       &cfg.hash_max_listpack_entries,
       0,
       INT64_MAX,
       nullptr,
       {},
       ApplyTypeLimits,
       "512"},
      {"hash-max-listpack-value",
       "hash-max-ziplist-value",
       kInt,
       0,
       &cfg.hash_max_listpack_value,
       0,
       INT64_MAX,
       nullptr,
       {},
       ApplyTypeLimits,
       "64"},
      {"set-max-intset-entries",
       nullptr,
       kInt,
       0,
       &cfg.set_max_intset_entries,
       0,
       INT64_MAX,
       nullptr,
       {},
       ApplyTypeLimits,
       "512"},
      {"set-max-listpack-entries",
       nullptr,
       kInt,
       0,
       &cfg.set_max_listpack_entries,
       0,
       INT64_MAX,
       nullptr,
       {},
       ApplyTypeLimits,
       "128"},
      {"set-max-listpack-value",
       nullptr,
       kInt,
       0,
       &cfg.set_max_listpack_value,
       0,
       INT64_MAX,
       nullptr,
       {},
       ApplyTypeLimits,
       "64"},
      {"zset-max-listpack-entries",
       "zset-max-ziplist-entries",
       kInt,
       0,
       &cfg.zset_max_listpack_entries,
       0,
       INT64_MAX,
       nullptr,
       {},
       ApplyTypeLimits,
       "128"},
      {"zset-max-listpack-value",
       "zset-max-ziplist-value",
       kInt,
       0,
       &cfg.zset_max_listpack_value,
       0,
       INT64_MAX,
       nullptr,
       {},
       ApplyTypeLimits,
       "64"},
      {"stream-node-max-bytes", nullptr, kMem, 0, &cfg.stream_node_max_bytes, 0, INT64_MAX,
       nullptr, {}, ApplyTypeLimits, "4096"},
      {"stream-node-max-entries", nullptr, kInt, 0, &cfg.stream_node_max_entries, 0, INT64_MAX,
       nullptr, {}, ApplyTypeLimits, "100"},
      {"list-max-listpack-size",
       "list-max-ziplist-size",
       kInt,
       0,
       &cfg.list_max_listpack_size,
       INT_MIN,
       INT_MAX,
       nullptr,
       {},
       ApplyTypeLimits,
       "-2"},
      {"list-compress-depth",
       nullptr,
       kInt,
       0,
       &cfg.list_compress_depth,
       0,
       INT_MAX,
       nullptr,
       {},
       ApplyTypeLimits,
       "0"},
      {"appendonly", nullptr, kBool, 0, &cfg.appendonly, 0, 0, nullptr, {}, ApplyAppendonly,
       "no"},
      {"appendfilename", nullptr, kStr, kImmutable, &cfg.appendfilename, 0, 0, nullptr, {},
       nullptr, "appendonly.aof", ValidAppendFilename},
      {"appenddirname", nullptr, kStr, kImmutable, &cfg.appenddirname, 0, 0, nullptr, {},
       nullptr, "appendonlydir", ValidAppendDirname},
      {"appendfsync", nullptr, kEnum, 0, &cfg.appendfsync, 0, 0, kAppendFsync, {}, nullptr,
       "everysec"},
      BOOL("aof-use-rdb-preamble", aof_use_rdb_preamble, "yes", 0),
      BOOL("aof-load-truncated", aof_load_truncated, "yes", 0),
      BOOL("aof-timestamp-enabled", aof_timestamp_enabled, "no", 0),
      BOOL("no-appendfsync-on-rewrite", no_appendfsync_on_rewrite, "no", 0),
      INT("auto-aof-rewrite-percentage", auto_aof_rewrite_percentage, 0, INT_MAX, "100", 0),
      MEM("auto-aof-rewrite-min-size", auto_aof_rewrite_min_size, 0, INT64_MAX, "64mb", 0),
      {"dbfilename",
       nullptr,
       kStr,
       kProtectedConfig,
       &cfg.dbfilename,
       0,
       0,
       nullptr,
       {},
       nullptr,
       "dump.rdb",
       ValidDbFilename},
      {"save",
       nullptr,
       kSpecial,
       0,
       nullptr,
       0,
       0,
       nullptr,
       {SetSave, GetSave},
       nullptr,
       "3600 1 300 100 60 10000"},
      BOOL("rdbcompression", rdbcompression, "yes", 0),
      BOOL("rdbchecksum", rdbchecksum, "yes", kImmutable),
      BOOL("stop-writes-on-bgsave-error", stop_writes_on_bgsave_error, "yes", 0),
      BOOL("rdb-save-incremental-fsync", rdb_save_incremental_fsync, "yes", 0),
      INT("rdb-key-save-delay", rdb_key_save_delay, INT_MIN, INT_MAX, "0", kHidden),
      INT("key-load-delay", key_load_delay, INT_MIN, INT_MAX, "0", kHidden),
      INT("loading-process-events-interval-bytes", loading_process_events_interval_bytes, 1024,
          INT_MAX, "2097152", kHidden),
      {"notify-keyspace-events",
       nullptr,
       kSpecial,
       0,
       nullptr,
       0,
       0,
       nullptr,
       {SetNotifyEvents, GetNotifyEvents},
       nullptr,
       ""},
  };
  return t;
}

enum UnimplKind { kUBool, kUNumber, kUText, kUEnum };
struct Unimpl {
  const char* name;
  const char* alias;
  const char* deflt;
  UnimplKind kind;
  const char* choices;  // kUEnum: "a, b, c"
  unsigned flags;       // kImmutable, kHidden as in Valkey
};
// Values of recognised-only directives are still checked for their kind.
bool CheckUnimplValue(const Unimpl& u, const std::string& v, std::string* err) {
  if (u.kind == kUBool) {
    std::string l = base::ToLower(v);
    if (l != "yes" && l != "no") {
      *err = "argument must be 'yes' or 'no'";
      return false;
    }
  } else if (u.kind == kUEnum) {
    std::string list = std::string(", ") + u.choices + ",";
    if (list.find(", " + base::ToLower(v) + ",") == std::string::npos) {
      *err = std::string("argument(s) must be one of the following: ") + u.choices;
      return false;
    }
  } else if (u.kind == kUNumber) {
    int64_t n;
    if (!base::ParseInt64(v, &n) && !base::ParseMemory(v)) {
      *err = "argument couldn't be parsed into an integer";
      return false;
    }
  }
  return true;
}
const Unimpl kUnimplemented[] = {
#include "server/config_unimplemented.inc"
};
std::map<std::string, std::string>& UnimplValues() {
  static std::map<std::string, std::string> m = [] {
    std::map<std::string, std::string> r;
    for (auto& u : kUnimplemented) r[u.name] = u.deflt;
    return r;
  }();
  return m;
}
std::set<std::string> g_unimpl_seen;
int64_t g_databases_forced_from = 0;  // cluster mode has one database: what was configured

// Fail closed: values of directives the node cannot honour yet, where ignoring them would leave
// it more open or less durable than asked. They stop the start and CONFIG SET refuses them.
bool IsYes(const std::string& v) { return base::EqualsNoCase(v, "yes"); }
// A value that does not parse is left to the directive's own check (and its error text).
bool NotZero(const std::string& v) {
  int64_t pct;
  if (v.size() > 1 && v.back() == '%' && base::ParseInt64(v.substr(0, v.size() - 1), &pct))
    return pct != 0;
  auto m = base::ParseMemory(v);
  return m && *m != 0;
}
struct FailClosed {
  const char* name;
  bool (*refuses)(const std::string& v);
  const char* why;
};
const FailClosed kFailClosed[] = {
    {"tls-port", NotZero, "TLS is not implemented yet"},
    {"tls-replication", IsYes,
     "TLS is not implemented yet, so replication would travel in clear text"},
    {"tls-cluster", IsYes,
     "TLS is not implemented yet, so the cluster bus would travel in clear text"},
    {"syslog-enabled", IsYes, "logging to syslog is not implemented yet"},
    {"rdb-del-sync-files", IsYes,
     "deleting the snapshot files made for replication is not implemented yet"},
};
// "" when the value is fine, else the reason it is refused.
std::string RefusedValue(const std::string& canon, const std::string& value) {
  for (auto& f : kFailClosed)
    if (canon == f.name && f.refuses(value))
      return "'" + canon + " " + value + "' is not supported yet by this server: " + f.why;
  return "";
}

Def* FindDef(std::string_view name) {
  for (auto& d : Table())
    if (base::EqualsNoCase(name, d.name) || (d.alias && base::EqualsNoCase(name, d.alias)))
      return &d;
  return nullptr;
}
const Unimpl* FindUnimpl(std::string_view name) {
  for (auto& u : kUnimplemented)
    if (base::EqualsNoCase(name, u.name) || (u.alias && base::EqualsNoCase(name, u.alias)))
      return &u;
  return nullptr;
}

std::string Join(const std::vector<std::string>& v) {
  std::string r;
  for (auto& s : v) r += (r.empty() ? "" : " ") + s;
  return r;
}

std::string GetValue(const Def& d) {
  switch (d.kind) {
    case kBool:
      return *static_cast<bool*>(d.ptr) ? "yes" : "no";
    case kInt:
    case kMem:
      if (d.ptr == &cfg.unixsocketperm) {
        char buf[16];
        snprintf(buf, sizeof(buf), "%llo", static_cast<long long>(cfg.unixsocketperm));
        return buf;
      }
      return std::to_string(*static_cast<int64_t*>(d.ptr));
    case kStr:
      return *static_cast<std::string*>(d.ptr);
    case kEnum:
      return d.enums[*static_cast<int*>(d.ptr)];
    case kSpecial:
      return d.special.get();
  }
  return "";
}

// Parses and stores; err gets Valkey's wording.
bool SetValue(Def& d, const std::vector<std::string>& args, std::string* err) {
  if (d.kind == kSpecial) return d.special.set(args, err);
  if (args.size() != 1) {
    *err = "wrong number of arguments";
    return false;
  }
  const std::string& v = args[0];
  switch (d.kind) {
    case kBool: {
      std::string l = base::ToLower(v);
      if (l != "yes" && l != "no") {
        *err = "argument must be 'yes' or 'no'";
        return false;
      }
      *static_cast<bool*>(d.ptr) = l == "yes";
      return true;
    }
    case kInt:
    case kMem: {
      int64_t n;
      if (d.ptr == &cfg.unixsocketperm) {
        char* end;
        n = strtoll(v.c_str(), &end, 8);
        if (v.empty() || *end) {
          *err = "argument couldn't be parsed into an integer";
          return false;
        }
      } else if (d.kind == kMem) {
        auto m = base::ParseMemory(v);
        int64_t neg;
        if (!m && base::ParseInt64(v, &neg)) {
          *err = "argument must be a memory value";
          return false;
        }
        if (!m || *m > static_cast<uint64_t>(INT64_MAX)) {
          *err = "argument must be a memory value";
          return false;
        }
        n = static_cast<int64_t>(*m);
      } else if (!base::ParseInt64(v, &n)) {
        *err = "argument couldn't be parsed into an integer";
        return false;
      }
      if (n < d.min || n > d.max) {
        *err = "argument must be between " + std::to_string(d.min) + " and " +
               std::to_string(d.max) + " inclusive";
        return false;
      }
      *static_cast<int64_t*>(d.ptr) = n;
      return true;
    }
    case kStr:
      if (d.validate && !d.validate(v, err)) return false;
      *static_cast<std::string*>(d.ptr) = v;
      return true;
    case kEnum: {
      for (int i = 0; d.enums[i]; i++)
        if (base::EqualsNoCase(v, d.enums[i])) {
          *static_cast<int*>(d.ptr) = i;
          return true;
        }
      std::string list;
      for (int i = 0; d.enums[i]; i++) list += (i ? ", " : "") + std::string(d.enums[i]);
      *err = "argument(s) must be one of the following: " + list;
      return false;
    }
    case kSpecial:
      break;
  }
  return false;
}


FILE* g_err_stream = nullptr;  // nullptr: stderr

bool Fatal(int lineno, const std::string& line, const std::string& msg) {
  fprintf(g_err_stream ? g_err_stream : stderr,
          "\n*** FATAL CONFIG FILE ERROR (Version 8.0.1) ***\nReading the configuration file, "
          "at line %d\n>>> '%s'\n%s\n",
          lineno, line.c_str(), msg.c_str());
  return false;
}

bool LoadLines(const std::vector<std::string>& lines, int depth);

bool ApplyLine(const std::string& raw, int lineno, int depth) {
  std::string line = raw;
  while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t'))
    line.pop_back();
  size_t i = 0;
  while (i < line.size() && isspace(static_cast<unsigned char>(line[i]))) i++;
  if (i == line.size() || line[i] == '#') return true;
  std::vector<std::string> argv;
  if (!net::SplitArgs(line, &argv))
    return Fatal(lineno, line, "Unbalanced quotes in configuration line");
  if (argv.empty()) return true;
  std::string name = base::ToLower(argv[0]);
  std::vector<std::string> args(argv.begin() + 1, argv.end());
  if (name == "include") {
    if (args.size() != 1) return Fatal(lineno, line, "Bad directive or wrong number of arguments");
    if (depth > 8) return Fatal(lineno, line, "Too many nested includes");
    std::ifstream f(args[0]);
    if (!f) return Fatal(lineno, line, "Fatal error, can't open config file '" + args[0] + "'");
    std::vector<std::string> inc;
    for (std::string l; std::getline(f, l);) inc.push_back(l);
    return LoadLines(inc, depth + 1);
  }
  if (name == "rename-command") {
    if (args.size() != 2) return Fatal(lineno, line, "Bad directive or wrong number of arguments");
    std::string err;
    if (!RenameInCommandTable(args[0], args[1], &err)) return Fatal(lineno, line, err);
    return true;
  }
  if (name == "user") {
    std::vector<std::string_view> v(args.begin(), args.end());
    std::string err;
    if (!acl::QueueConfigUser(v, &err)) return Fatal(lineno, line, err);
    return true;
  }
  if (name == "loadmodule")
    return Fatal(lineno, line, "'loadmodule' is not supported: this server has no module API");
  if (name == "sentinel")
    return Fatal(lineno, line, "sentinel directive while not in sentinel mode");
  if (Def* d = FindDef(name)) {
    // Multi-argument directives keep every argument; "save" and "bind" may also repeat.
    std::vector<std::string> vals = args;
    if (d->kind != kSpecial && vals.size() != 1)
      return Fatal(lineno, line, "wrong number of arguments");
    if (d->kind == kSpecial && vals.empty() && std::string(d->name) == "save")
      vals.push_back("");  // "save" alone disables snapshots, as save ""
    if (d->kind == kSpecial && vals.empty() && !(d->flags & kEmptyChecked))
      return Fatal(lineno, line, "wrong number of arguments");
    std::string err = RefusedValue(d->name, Join(vals));
    if (!err.empty()) return Fatal(lineno, line, err);
    if (d->ptr == nullptr && std::string(d->name) == "save" && vals.size() >= 1) {
      // Consecutive save lines add points: "save 900 1" then "save 300 10".
      static bool first_save = true;
      std::vector<std::string> all;
      if (!first_save && !cfg.save.empty() && !(vals.size() == 1 && vals[0].empty()))
        all.push_back(cfg.save);
      first_save = false;
      for (auto& v : vals) all.push_back(v);
      if (!SetSave(all, &err)) return Fatal(lineno, line, err);
      return true;
    }
    if (!SetValue(*d, vals, &err)) return Fatal(lineno, line, err);
    return true;
  }
  if (const Unimpl* u = FindUnimpl(name)) {
    if (args.empty()) return Fatal(lineno, line, "wrong number of arguments");
    std::string err;
    if (args.size() == 1 && !CheckUnimplValue(*u, args[0], &err)) return Fatal(lineno, line, err);
    err = RefusedValue(u->name, Join(args));
    if (!err.empty()) return Fatal(lineno, line, err);
    UnimplValues()[u->name] = Join(args);
    if (Join(args) != u->deflt) g_unimpl_seen.insert(u->name);  // the default asks for nothing
    return true;
  }
  return Fatal(lineno, line, "Bad directive or wrong number of arguments");
}

bool LoadLines(const std::vector<std::string>& lines, int depth) {
  for (size_t i = 0; i < lines.size(); i++)
    if (!ApplyLine(lines[i], static_cast<int>(i) + 1, depth)) return false;
  return true;
}

}  // namespace

std::vector<std::string> CliToLines(const std::vector<std::string>& cli) {
  // "--name a b --other c" -> lines "name "a" "b"", as Valkey 8 joins them. An argument
  // starting with "--" names a directive only once the previous directive has a value: the
  // first argument after a bare name is its value whatever it looks like ("--port --bla" sets
  // port to "--bla"), so a value may start with "--". A bare --save followed by another name,
  // or last, is save "" (what an empty list of save points produces).
  std::vector<std::string> lines;
  bool has_value = true;  // the last directive has an argument (or there is none yet)
  auto quoted = [](const std::string& a) {
    std::string q = "\"";
    for (char c : a) {
      if (c == '"' || c == '\\') q.push_back('\\');
      if (c == '\n') {
        q += "\\n";
        continue;
      }
      q.push_back(c);
    }
    return q + "\"";
  };
  for (size_t i = 0; i < cli.size(); i++) {
    const std::string& a = cli[i];
    bool dashed = a.size() > 2 && a[0] == '-' && a[1] == '-';
    if (dashed && has_value) {
      lines.push_back(a.substr(2));
      std::vector<std::string> words;
      // "--port 6380" in one argument carries its value
      has_value = net::SplitArgs(a, &words) && words.size() > 1;
      bool next_dashed = i + 1 < cli.size() && cli[i + 1].rfind("--", 0) == 0;
      if (!has_value && base::EqualsNoCase(a, "--save") && (next_dashed || i + 1 == cli.size())) {
        lines.back() += " \"\"";
        has_value = true;
      }
    } else if (!lines.empty()) {
      lines.back() += " " + quoted(a);
      has_value = true;
    }
  }
  return lines;
}

std::string FormatPercentile(double p) {
  char buf[64];
  snprintf(buf, sizeof(buf), "%f", p);
  std::string s(buf);
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  return s;
}

std::map<std::string, std::string>& BuiltinDefaults() {
  static std::map<std::string, std::string> m;
  return m;
}

bool LoadConfig(const std::string& path, const std::vector<std::string>& cli_args) {
  for (auto& d : Table())
    if (std::string(d.name) != "dir") BuiltinDefaults()[d.name] = GetValue(d);
  std::vector<std::string> lines;
  if (!path.empty()) {
    std::ifstream f(path);
    if (!f) {
      fprintf(stderr, "Fatal error, can't open config file '%s': No such file or directory\n",
              path.c_str());
      return false;
    }
    for (std::string l; std::getline(f, l);) lines.push_back(l);
  }
  for (auto& l : CliToLines(cli_args)) lines.push_back(l);
  return LoadConfigLines(lines);
}

void SetConfigErrorStream(FILE* f) { g_err_stream = f; }

bool LoadConfigLines(const std::vector<std::string>& lines) {
  if (!LoadLines(lines, 0)) return false;
  // Sanity checks of the whole configuration, as Valkey makes them.
  if (cfg.cluster_enabled && !cfg.replicaof.empty()) {
    // Not one line's fault: no line is named (as Valkey prints it).
    fprintf(g_err_stream ? g_err_stream : stderr,
            "\n*** FATAL CONFIG FILE ERROR (Version 8.0.1) ***\n"
            "replicaof directive not allowed in cluster mode\n");
    return false;
  }
  if (cfg.cluster_enabled && cfg.databases > 1) {
    g_databases_forced_from = cfg.databases;  // logged once the log is open
    cfg.databases = 1;
  }
  ApplyHz(nullptr);
  ApplyTypeLimits(nullptr);
  return true;
}

void WarnUnimplementedDirectives() {
  if (g_databases_forced_from)
    LOG_WARNING("WARNING: Changing databases number from %lld to 1 since we are in cluster mode",
                static_cast<long long>(g_databases_forced_from));
  for (auto& n : g_unimpl_seen)
    LOG_WARNING(
        "Config directive '%s' is recognised but not implemented by this server yet; "
        "its value is kept for CONFIG GET and otherwise ignored.",
        n.c_str());
}

void ConfigGet(const std::vector<std::string>& patterns,
               std::vector<std::pair<std::string, std::string>>* out) {
  std::set<std::string> seen;
  auto add = [&](const std::string& name, const std::string& value) {
    if (seen.insert(name).second) out->push_back({name, value});
  };
  for (auto& p : patterns) {
    bool glob = p.find_first_of("*?[") != std::string::npos;
    if (!glob) {  // an exact name is echoed as the client typed it
      if (Def* d = FindDef(p))
        add(p, GetValue(*d));
      else if (const Unimpl* u = FindUnimpl(p))
        add(p, UnimplValues()[u->name]);
      continue;
    }
    for (auto& d : Table()) {
      if (d.flags & kHidden) continue;
      if (base::GlobMatch(p, d.name, true)) add(d.name, GetValue(d));
      if (d.alias && base::GlobMatch(p, d.alias, true)) add(d.alias, GetValue(d));
    }
    for (auto& u : kUnimplemented) {
      if (u.flags & kHidden) continue;
      if (base::GlobMatch(p, u.name, true)) add(u.name, UnimplValues()[u.name]);
      if (u.alias && base::GlobMatch(p, u.alias, true)) add(u.alias, UnimplValues()[u.name]);
    }
  }
}

std::string ConfigValue(const std::string& name) {
  if (Def* d = FindDef(name)) return GetValue(*d);
  if (const Unimpl* u = FindUnimpl(name)) return UnimplValues()[u->name];
  return "";
}

std::string ConfigSet(const std::vector<std::pair<std::string, std::string>>& pairs,
                      bool local_client) {
  // Validate names, mutability, duplicates and values first (Valkey's order), then apply in
  // order with rollback on failure.
  auto failed = [](const std::string& n, const std::string& why) {
    return "CONFIG SET failed (possibly related to argument '" + n + "') - " + why;
  };
  bool protected_ok =
      cfg.enable_protected_configs == 1 || (cfg.enable_protected_configs == 2 && local_client);
  std::set<std::string> names;
  bool deny_loading = false;
  for (auto& [n, v] : pairs) {
    Def* d = FindDef(n);
    const Unimpl* u = d ? nullptr : FindUnimpl(n);
    if (!d && !u) return "Unknown option or number of arguments for CONFIG SET - '" + n + "'";
    std::string canon = d ? d->name : u->name;
    unsigned flags = d ? d->flags : u->flags;
    if (flags & kImmutable) return failed(n, "can't set immutable config");
    if ((flags & kProtectedConfig) && !protected_ok) return failed(n, "can't set protected config");
    if ((flags & kDenyLoading) && Loading()) {
      deny_loading = true;  // answered after the other checks of the names, as Valkey 8
      continue;
    }
    if (!names.insert(canon).second) return failed(n, "duplicate parameter");
    std::string err;
    if (u && !CheckUnimplValue(*u, v, &err)) return failed(n, err);
    err = RefusedValue(canon, v);
    if (!err.empty()) return failed(n, err);
  }
  if (deny_loading) return ErrLoading();
  std::vector<std::pair<Def*, std::string>> old;
  std::string err;
  for (auto& [n, v] : pairs) {
    Def* d = FindDef(n);
    if (!d) {
      UnimplValues()[FindUnimpl(n)->name] = v;
      continue;
    }
    std::string prev = GetValue(*d);
    std::vector<std::string> args;
    if (d->kind == kSpecial) {
      if (std::string(d->name) == "bind" || std::string(d->name) == "client-output-buffer-limit") {
        std::istringstream is(v);
        for (std::string w; is >> w;) args.push_back(w);
      } else {
        args.push_back(v);
      }
    } else {
      args.push_back(v);
    }
    bool ok = SetValue(*d, args, &err) && (!d->apply || d->apply(&err));
    if (!ok) {
      // Roll back everything applied so far, including this one.
      std::string ignored;
      std::vector<std::string> back{prev};
      SetValue(*d, back, &ignored);
      if (d->apply) d->apply(&ignored);  // e.g. listen on the old addresses again
      for (auto it = old.rbegin(); it != old.rend(); ++it) {
        std::vector<std::string> b;
        if (it->first->kind == kSpecial && std::string(it->first->name) != "save" &&
            std::string(it->first->name) != "dir") {
          std::istringstream is(it->second);
          for (std::string w; is >> w;) b.push_back(w);
        } else {
          b.push_back(it->second);
        }
        SetValue(*it->first, b, &ignored);
        if (it->first->apply) it->first->apply(&ignored);
      }
      return "CONFIG SET failed (possibly related to argument '" + n + "') - " + err;
    }
    old.push_back({d, prev});
  }
  return "";
}

// Directives whose value is several words, written unquoted.
bool MultiWordValue(const std::string& name) {
  return name == "save" || name == "bind" || name == "client-output-buffer-limit" ||
         name == "replicaof" || name == "oom-score-adj-values" || name == "shutdown-on-sigint" ||
         name == "shutdown-on-sigterm";
}

constexpr const char* kDefaultUserLine = "user default on nopass sanitize-payload ~* &* +@all";

std::string ConfigRewrite(bool force_all) {
  if (g.config_file.empty()) return "The server is running without a config file";
  std::vector<std::string> lines;
  {
    std::ifstream f(g.config_file);
    for (std::string l; std::getline(f, l);) lines.push_back(l);
  }
  auto quote = [](const std::string& v) {
    if (v.empty()) return std::string("\"\"");
    bool plain = v.find_first_of(" \t\"'\\") == std::string::npos;
    if (plain) return v;
    std::string q = "\"";
    for (char c : v) {
      if (c == '"' || c == '\\') q.push_back('\\');
      q.push_back(c);
    }
    return q + "\"";
  };
  // Memory sizes are written with the largest exact unit, as operators write them.
  auto human = [](const Def& d, const std::string& v) {
    if (d.kind != kMem) return v;
    uint64_t n = std::stoull(v);
    if (n == 0) return v;
    if (n % (1ULL << 30) == 0) return std::to_string(n >> 30) + "gb";
    if (n % (1ULL << 20) == 0) return std::to_string(n >> 20) + "mb";
    if (n % 1024 == 0) return std::to_string(n >> 10) + "kb";
    return v;
  };
  // Current non-default values of every directive (every value, with force_all; a primary
  // has no replicaof line either way).
  std::map<std::string, std::string> want;
  for (auto& d : Table()) {
    std::string v = GetValue(d);
    if (std::string(d.name) == "dir" || (std::string(d.name) == "replicaof" && v.empty())) continue;
    if (force_all || v != BuiltinDefaults()[d.name]) want[d.name] = human(d, v);
  }
  for (auto& u : kUnimplemented)
    if (force_all || UnimplValues()[u.name] != u.deflt) want[u.name] = UnimplValues()[u.name];
  std::set<std::string> written;
  std::vector<std::string> out;
  // The users (ACL LIST lines) replace the file's user lines, where the first one was.
  std::vector<std::string> users = acl::ConfigUserLines();
  bool users_written = false;
  for (auto& l : lines) {
    std::vector<std::string> argv;
    if (!net::SplitArgs(l, &argv) || argv.empty() || argv[0][0] == '#') {
      out.push_back(l);
      continue;
    }
    std::string n = base::ToLower(argv[0]);
    if (n == "user") {
      if (!users_written) out.insert(out.end(), users.begin(), users.end());
      users_written = true;
      continue;
    }
    Def* d = FindDef(n);
    const Unimpl* u = d ? nullptr : FindUnimpl(n);
    std::string canon = d ? d->name : (u ? u->name : n);
    if (!d && !u) {
      out.push_back(l);
      continue;
    }
    if (written.count(canon)) continue;  // collapse repeated lines into one
    written.insert(canon);
    std::string v = d ? human(*d, GetValue(*d)) : UnimplValues()[u->name];
    // A primary's file loses its replicaof lines; a cluster node's never holds one.
    if (canon == "replicaof" && (v.empty() || cfg.cluster_enabled)) continue;
    bool multi = MultiWordValue(canon);
    out.push_back(canon + " " + (multi ? (v.empty() ? "\"\"" : v) : quote(v)));
  }
  bool header = false;
  for (auto& [n, v] : want) {
    if (written.count(n)) continue;
    if (!header) {
      out.push_back("# Generated by CONFIG REWRITE");
      header = true;
    }
    if (n == "replicaof" && cfg.cluster_enabled) continue;
    bool multi = MultiWordValue(n);
    out.push_back(n + " " + (multi ? (v.empty() ? "\"\"" : v) : quote(v)));
  }
  // Only users beyond the built-in default one need lines.
  if (!users_written && !(users.size() == 1 && users[0] == kDefaultUserLine)) {
    if (!header) out.push_back("# Generated by CONFIG REWRITE");
    out.insert(out.end(), users.begin(), users.end());
  }
  std::string tmp = g.config_file + ".tmp-rewrite";
  {
    std::ofstream f(tmp, std::ios::trunc);
    if (!f) return "Rewriting config file: " + std::string(strerror(errno));
    for (auto& l : out) f << l << "\n";
    f.flush();
    if (!f) return "Rewriting config file: write failed";
  }
  if (rename(tmp.c_str(), g.config_file.c_str()) == -1)
    return "Rewriting config file: " + std::string(strerror(errno));
  return "";
}

const char* HelloServerName() { return cfg.extended_redis_compat ? "redis" : kServerName; }
const char* HelloVersion() {
  return cfg.extended_redis_compat ? kRedisCompatVersion : kValkeyVersion;
}
const char* ServerTitle() { return cfg.extended_redis_compat ? "Redis" : "Valkey"; }
std::string ErrLoading() {
  return std::string("-LOADING ") + ServerTitle() + " is loading the dataset in memory";
}

}  // namespace server
