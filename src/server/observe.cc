#include "server/observe.h"

#include <sys/time.h>

#include <algorithm>
#include <cmath>
#include <deque>

#include "base/util.h"
#include "server/config.h"
#include "server/latency_graph.h"
#include "server/server.h"

namespace server {

namespace {

constexpr size_t kSlowlogMaxArgc = 32;
constexpr size_t kSlowlogMaxString = 128;
constexpr const char* kRedactedArg = "(redacted)";

struct SlowEntry {
  int64_t id = 0;
  int64_t time = 0;
  int64_t duration = 0;
  std::vector<std::string> argv;
  std::string peer, name;
};
std::deque<SlowEntry> g_slowlog;  // newest first
int64_t g_slowlog_next_id = 0;
std::vector<Client*> g_monitors;

// LATENCY: per event, the last 160 seconds that had a spike (the highest of each second) and
// the highest ever, as Valkey keeps them.
constexpr size_t kLatencySamples = 160;
struct LatencySeries {
  struct Sample {
    int64_t time = 0;
    int64_t latency = 0;
  };
  Sample samples[kLatencySamples];
  size_t idx = 0;
  int64_t max = 0;
};
std::vector<std::pair<std::string, LatencySeries>> g_latency;  // in order of first spike

LatencySeries* FindSeries(std::string_view event) {
  for (auto& [name, ts] : g_latency)
    if (name == event) return &ts;
  return nullptr;
}

// Which arguments are secrets: AUTH's, HELLO's AUTH pair, MIGRATE's AUTH/AUTH2, ACL SETUSER's,
// DELUSER's and GETUSER's (user names and rules), and the values of CONFIG SET for Valkey's
// sensitive configs (Valkey redacts the same, a failing command's too).
bool Secret(const CommandSpec* cmd, const std::vector<std::string_view>& argv, size_t j) {
  std::string_view top = cmd->parent ? cmd->parent->name : cmd->name;
  if (top == "auth") return j >= 1;
  if (top == "hello") {
    for (size_t k = 2; k + 2 < argv.size(); k++)
      if (base::EqualsNoCase(argv[k], "auth") && (j == k + 1 || j == k + 2)) return true;
    return false;
  }
  if (top == "migrate") {
    if (j >= 1 && base::EqualsNoCase(argv[j - 1], "auth")) return true;
    if (j >= 1 && base::EqualsNoCase(argv[j - 1], "auth2")) return true;
    if (j >= 2 && base::EqualsNoCase(argv[j - 2], "auth2")) return true;
    return false;
  }
  std::string_view sub = cmd->parent ? std::string_view(cmd->name) : std::string_view();
  if (top == "acl") {
    if (sub == "setuser" || sub == "deluser") return j >= 2;
    if (sub == "getuser") return j == 2;
    return false;
  }
  if (top == "config" && sub == "set" && j >= 3 && (j - 2) % 2 == 1) {
    std::string name = base::ToLower(argv[j - 1]);
    return name == "requirepass" || name == "primaryauth" || name == "masterauth" ||
           name == "primaryuser" || name == "masteruser" || name == "tls-key-file-pass" ||
           name == "tls-client-key-file-pass";
  }
  return false;
}

std::string PeerId(const Client* c) {
  if (c->flags & kUnixSocket) return "unix:" + cfg.unixsocket;
  return c->addr;
}

void FeedMonitors(Client* c, const CommandSpec* cmd) {
  struct timeval tv;
  gettimeofday(&tv, nullptr);
  char head[96];
  snprintf(head, sizeof head, "+%ld.%06ld [%d ", static_cast<long>(tv.tv_sec),
           static_cast<long>(tv.tv_usec), c->dbid);
  std::string line = head;
  line += PeerId(c);
  line += "] ";
  for (size_t j = 0; j < c->argv.size(); j++) {
    if (j) line += ' ';
    line += Secret(cmd, c->argv, j) ? base::Repr(kRedactedArg) : base::Repr(c->argv[j]);
  }
  line += "\r\n";
  for (Client* m : g_monitors) {
    if (m->flags & kCloseAsap) continue;
    m->conn.out += line;
    SealOutputIfLarge(m);
    QueueWrite(m);
  }
}

void SlowlogPush(Client* c, const CommandSpec* cmd, int64_t duration) {
  if (cfg.slowlog_log_slower_than < 0 || cfg.slowlog_max_len == 0) return;
  if (duration >= cfg.slowlog_log_slower_than) {
    SlowEntry e;
    e.id = g_slowlog_next_id++;
    e.time = time(nullptr);
    e.duration = duration;
    size_t argc = std::min(c->argv.size(), kSlowlogMaxArgc);
    for (size_t j = 0; j < argc; j++) {
      if (argc != c->argv.size() && j == argc - 1) {
        e.argv.push_back("... (" + std::to_string(c->argv.size() - argc + 1) + " more arguments)");
      } else if (Secret(cmd, c->argv, j)) {
        e.argv.push_back(kRedactedArg);
      } else if (c->argv[j].size() > kSlowlogMaxString) {
        e.argv.push_back(std::string(c->argv[j].substr(0, kSlowlogMaxString)) + "... (" +
                         std::to_string(c->argv[j].size() - kSlowlogMaxString) + " more bytes)");
      } else {
        e.argv.emplace_back(c->argv[j]);
      }
    }
    e.peer = PeerId(c);
    e.name = c->name;
    g_slowlog.push_front(std::move(e));
  }
  while (g_slowlog.size() > static_cast<size_t>(cfg.slowlog_max_len)) g_slowlog.pop_back();
}

void SlowlogCommand(Client* c) {
  auto& a = c->argv;
  std::string sub = base::ToLower(a[1]);
  auto r = c->R();
  if (sub == "help" && a.size() == 2) {
    return ReplyHelp(c, "SLOWLOG",
                  {"GET [<count>]",
                   "    Return top <count> entries from the slowlog (default: 10, -1 mean all).",
                   "    Entries are made of:",
                   "    id, timestamp, time in microseconds, arguments array, client IP and port,",
                   "    client name", "LEN", "    Return the length of the slowlog.", "RESET",
                   "    Reset the slowlog."});
  }
  if (sub == "reset" && a.size() == 2) {
    g_slowlog.clear();
    return r.Ok();
  }
  if (sub == "len" && a.size() == 2) return r.Int(static_cast<int64_t>(g_slowlog.size()));
  if (sub == "get" && (a.size() == 2 || a.size() == 3)) {
    int64_t count = 10;
    if (a.size() == 3) {
      if (!base::ParseInt64(a[2], &count) || count < -1)
        return r.Error("count should be greater than or equal to -1");
      if (count == -1) count = static_cast<int64_t>(g_slowlog.size());
    }
    count = std::min<int64_t>(count, static_cast<int64_t>(g_slowlog.size()));
    r.ArrayLen(count);
    for (int64_t i = 0; i < count; i++) {
      const SlowEntry& e = g_slowlog[static_cast<size_t>(i)];
      r.ArrayLen(6);
      r.Int(e.id);
      r.Int(e.time);
      r.Int(e.duration);
      r.ArrayLen(static_cast<int64_t>(e.argv.size()));
      for (auto& s : e.argv) r.Bulk(s);
      r.Bulk(e.peer);
      r.Bulk(e.name);
    }
    return;
  }
  r.Error("unknown subcommand or wrong number of arguments for '" + std::string(a[1]) +
          "'. Try SLOWLOG HELP.");
}

// LATENCY HISTOGRAM's entry for one command: calls and the cumulative counts at Valkey's
// reporting points (powers of two of 1024 ns, each shown as the highest value its histogram
// bucket holds, in µs: 1, 2, 4, 8, 16, 33, 66, 132 ...), only where the count grew.
void ReplyHistogram(net::Reply& r, const CommandSpec* cmd) {
  const CommandStats& st = cmd->stats;
  uint64_t total = 0;
  for (uint32_t v : st.latency) total += v;
  r.Bulk(cmd->fullname);
  r.MapLen(2);
  r.Bulk("calls");
  r.Int(static_cast<int64_t>(total));
  r.Bulk("histogram_usec");
  std::vector<std::pair<int64_t, uint64_t>> points;
  uint64_t cum = 0, shown = 0;
  int b = 0;
  for (int k = 0; k < 50 && shown < total; k++) {
    uint64_t ns = uint64_t{1024} << k;
    double limit_us = static_cast<double>(ns + ns / 128) / 1000.0;
    // Buckets of 4 per power of two of whole µs; below 8 µs a bucket is one value, above it
    // is counted at its middle.
    for (; b < CommandStats::kBuckets; b++) {
      int lg = b / 4, q = b % 4;
      double at = lg >= 3 ? std::ldexp(1.0 + (q + 0.5) / 4.0, lg)
                          : (lg == 2 ? std::ldexp(1.0 + q / 4.0, lg) : std::ldexp(1.0, lg));
      if (at > limit_us) break;
      cum += st.latency[b];
    }
    if (cum > shown) {
      points.emplace_back(static_cast<int64_t>((ns + ns / 128 - 1) / 1000), cum);
      shown = cum;
    }
  }
  r.MapLen(static_cast<int64_t>(points.size()));
  for (auto& [k, v] : points) {
    r.Int(k);
    r.Int(static_cast<int64_t>(v));
  }
}

bool HasLatencySamples(const CommandSpec* cmd) {
  for (uint32_t v : cmd->stats.latency)
    if (v) return true;
  return false;
}

void LatencyHistogram(Client* c) {
  auto& a = c->argv;
  std::vector<const CommandSpec*> cmds;
  auto add = [&](const CommandSpec* cmd) {
    if (cmd->subcommands.empty()) {
      if (HasLatencySamples(cmd)) cmds.push_back(cmd);
      return;
    }
    for (auto& s : cmd->subcommands)
      if (HasLatencySamples(&s)) cmds.push_back(&s);
  };
  if (a.size() == 2) {
    for (const CommandSpec* cmd : AllCommands()) add(cmd);
  } else {
    for (size_t j = 2; j < a.size(); j++) {
      std::vector<std::string_view> parts;
      std::string_view n = a[j];
      size_t bar = n.find('|');
      parts.push_back(n.substr(0, bar));
      if (bar != std::string_view::npos) parts.push_back(n.substr(bar + 1));
      const CommandSpec* cmd = LookupCommandArgv(parts);
      if (!cmd || (bar != std::string_view::npos && !cmd->parent)) continue;
      if (std::find(cmds.begin(), cmds.end(), cmd) == cmds.end()) add(cmd);
    }
  }
  auto r = c->R();
  r.MapLen(static_cast<int64_t>(cmds.size()));
  for (const CommandSpec* cmd : cmds) ReplyHistogram(r, cmd);
}

// LATENCY DOCTOR: the same figures Valkey's report gives per event (spikes, average, mean
// deviation, period, worst), with advice in our own words.
std::string LatencyDoctorReport() {
  std::string out;
  char buf[512];
  if (g_latency.empty()) {
    if (cfg.latency_monitor_threshold == 0)
      return "Latency monitoring is disabled (latency-monitor-threshold 0). Set it to the number "
             "of milliseconds from which an event counts as a spike, for example CONFIG SET "
             "latency-monitor-threshold 100, and ask again later.\n";
    return "No latency spike was recorded since this instance started (threshold: " +
           std::to_string(cfg.latency_monitor_threshold) + " ms).\n";
  }
  out = "Latency spikes were recorded on this instance.\n\n";
  bool commands = false, expire = false, evict = false, disk = false;
  int n = 0;
  for (auto& [name, ts] : g_latency) {
    int64_t count = 0, sum = 0, tmin = 0, tmax = 0;
    for (auto& smp : ts.samples) {
      if (!smp.time) continue;
      count++;
      sum += smp.latency;
      if (!tmin || smp.time < tmin) tmin = smp.time;
      if (smp.time > tmax) tmax = smp.time;
    }
    if (!count) continue;
    double avg = static_cast<double>(sum) / static_cast<double>(count), mad = 0;
    for (auto& smp : ts.samples)
      if (smp.time) mad += std::fabs(static_cast<double>(smp.latency) - avg);
    mad /= static_cast<double>(count);
    double period = static_cast<double>(tmax - tmin) / static_cast<double>(count);
    snprintf(buf, sizeof buf,
             "%d. %s: %lld latency spikes (average %lldms, mean deviation %lldms, period %.2f "
             "sec). Worst all time event %lldms.\n",
             ++n, name.c_str(), static_cast<long long>(count), static_cast<long long>(avg),
             static_cast<long long>(mad), period, static_cast<long long>(ts.max));
    out += buf;
    commands |= name == "command" || name == "fast-command";
    expire |= name.rfind("expire", 0) == 0;
    evict |= name.rfind("eviction", 0) == 0;
    disk |= name.rfind("aof", 0) == 0 || name.rfind("rdb", 0) == 0 || name == "fork";
  }
  out += "\nWhat to look at:\n\n";
  if (commands)
    out += "- Slow commands: SLOWLOG GET lists them with their arguments (slowlog-log-slower-than "
           "sets what is recorded). Commands over big values (KEYS, SMEMBERS, HGETALL, LRANGE "
           "0 -1, SORT, large DEL) take time proportional to their size.\n";
  if (expire)
    out += "- The expiry cycle: many keys expiring in the same second make it run long; spread "
           "their TTLs.\n";
  if (evict)
    out += "- Eviction: every write over maxmemory first frees memory; large values take longer "
           "to evict. A higher maxmemory or smaller values help.\n";
  if (disk)
    out += "- Disk: AOF and snapshot writes waited on the disk; check its load, or use "
           "appendfsync everysec.\n";
  out += "- LATENCY HISTORY <event> shows each spike; LATENCY RESET clears them.\n";
  return out;
}

void LatencyCommand(Client* c) {
  auto& a = c->argv;
  std::string sub = base::ToLower(a[1]);
  auto r = c->R();
  if (sub == "history" && a.size() == 3) {
    LatencySeries* ts = FindSeries(a[2]);
    int64_t n = 0;
    if (ts)
      for (auto& smp : ts->samples) n += smp.time != 0;
    r.ArrayLen(n);
    if (!ts) return;
    for (size_t j = 0; j < kLatencySamples; j++) {
      const auto& smp = ts->samples[(ts->idx + j) % kLatencySamples];
      if (smp.time == 0) continue;
      r.ArrayLen(2);
      r.Int(smp.time);
      r.Int(smp.latency);
    }
    return;
  }
  if (sub == "graph" && a.size() == 3) {
    LatencySeries* ts = FindSeries(a[2]);
    if (!ts)
      return r.Error("No samples available for event '" + std::string(a[2]) + "'");
    std::vector<LatencyPoint> points;
    for (size_t j = 0; j < kLatencySamples; j++) {
      const auto& smp = ts->samples[(ts->idx + j) % kLatencySamples];
      if (smp.time) points.push_back({smp.time, smp.latency});
    }
    return r.Verbatim(LatencyGraph(a[2], points, ts->max, time(nullptr)));
  }
  if (sub == "latest" && a.size() == 2) {
    r.ArrayLen(static_cast<int64_t>(g_latency.size()));
    for (auto& [name, ts] : g_latency) {
      const auto& last = ts.samples[(ts.idx + kLatencySamples - 1) % kLatencySamples];
      r.ArrayLen(4);
      r.Bulk(name);
      r.Int(last.time);
      r.Int(last.latency);
      r.Int(ts.max);
    }
    return;
  }
  if (sub == "reset") {
    size_t before = g_latency.size();
    if (a.size() == 2) {
      g_latency.clear();
    } else {
      g_latency.erase(std::remove_if(g_latency.begin(), g_latency.end(),
                                     [&](const auto& e) {
                                       for (size_t j = 2; j < a.size(); j++)
                                         if (base::EqualsNoCase(e.first, a[j])) return true;
                                       return false;
                                     }),
                      g_latency.end());
    }
    return r.Int(static_cast<int64_t>(before - g_latency.size()));
  }
  if (sub == "histogram") return LatencyHistogram(c);
  if (sub == "doctor" && a.size() == 2) return r.Verbatim(LatencyDoctorReport());
  if (sub == "help" && a.size() == 2) {
    return ReplyHelp(c, "LATENCY",
                     {"DOCTOR", "    Return a human readable latency analysis report.",
                      "GRAPH <event>", "    Return an ASCII latency graph for the <event> class.",
                      "HISTORY <event>", "    Return time-latency samples for the <event> class.",
                      "LATEST", "    Return the latest latency samples for all events.",
                      "RESET [<event> ...]",
                      "    Reset latency data of one or more <event> classes.",
                      "    (default: reset all data for all event classes)",
                      "HISTOGRAM [COMMAND ...]",
                      "    Return a cumulative distribution of latencies in the format of a "
                      "histogram for the specified command names.",
                      "    If no commands are specified then all histograms are replied."});
  }
  r.Error("unknown subcommand or wrong number of arguments for '" + std::string(a[1]) +
          "'. Try LATENCY HELP.");
}

void MonitorCommand(Client* c) {
  if (g.in_exec) return c->R().Error("MONITOR isn't allowed for DENY BLOCKING client");
  if (c->flags & (kReplica | kMonitor)) return;  // already a replica or monitoring
  AddMonitor(c);
  c->R().Ok();
}

}  // namespace

void LatencyAddSampleIfNeeded(const char* event, int64_t latency_ms) {
  if (cfg.latency_monitor_threshold <= 0 || latency_ms < cfg.latency_monitor_threshold) return;
  LatencySeries* ts = FindSeries(event);
  if (!ts) {
    g_latency.emplace_back(event, LatencySeries{});
    ts = &g_latency.back().second;
  }
  int64_t now = time(nullptr);
  if (latency_ms > ts->max) ts->max = latency_ms;
  auto& prev = ts->samples[(ts->idx + kLatencySamples - 1) % kLatencySamples];
  if (prev.time == now) {  // one sample per second: its highest
    if (latency_ms > prev.latency) prev.latency = latency_ms;
    return;
  }
  ts->samples[ts->idx] = {now, latency_ms};
  ts->idx = (ts->idx + 1) % kLatencySamples;
}

void CommandObserved(Client* c, const CommandSpec* cmd, int64_t duration_us, bool monitor,
                     bool slowlog) {
  if (c->id == UINT64_MAX) return;  // the AOF being loaded
  uint32_t flags = cmd->flags | (cmd->parent ? cmd->parent->flags : 0);
  if (slowlog && !(flags & kCmdSkipSlowlog)) {
    SlowlogPush(c, cmd, duration_us);
    LatencyAddSampleIfNeeded((flags & kCmdFast) ? "fast-command" : "command", duration_us / 1000);
  }
  if (monitor && !g_monitors.empty() && !(flags & (kCmdSkipMonitor | kCmdAdmin)))
    FeedMonitors(c, cmd);
}

void AddMonitor(Client* c) {
  c->flags |= kMonitor;
  g_monitors.push_back(c);
}

void RemoveMonitor(Client* c) {
  if (!(c->flags & kMonitor)) return;
  g_monitors.erase(std::remove(g_monitors.begin(), g_monitors.end(), c), g_monitors.end());
  c->flags &= ~kMonitor;
}

size_t MonitorCount() { return g_monitors.size(); }

void FeedMonitorsExecAbort(Client* c) {
  if (!g_monitors.empty() && c->last_cmd) FeedMonitors(c, c->last_cmd);
}

void RegisterObserveCommands(std::vector<CommandSpec>* t) {
  const char* g = "server";
  constexpr uint32_t kSl = kCmdAdmin | kCmdLoading | kCmdStale;
  CommandSpec slowlog{"slowlog", -2, 0, nullptr, g, "2.2.12",
                      "A container for slow log commands.", "Depends on subcommand."};
  slowlog.subcommands = {
      {"get", -2, kSl, SlowlogCommand, g, "2.2.12", "Returns the slow log's entries.",
       "O(N) where N is the number of entries returned"},
      {"help", 2, kCmdLoading | kCmdStale, SlowlogCommand, g, "6.2.0",
       "Show helpful text about the different subcommands", "O(1)"},
      {"len", 2, kSl, SlowlogCommand, g, "2.2.12",
       "Returns the number of entries in the slow log.", "O(1)"},
      {"reset", 2, kSl, SlowlogCommand, g, "2.2.12", "Clears all entries from the slow log.",
       "O(N) where N is the number of entries in the slowlog"},
  };
  t->push_back(std::move(slowlog));
  CommandSpec latency{"latency", -2, 0, nullptr, g, "2.8.13",
                      "A container for latency diagnostics commands.", "Depends on subcommand."};
  latency.subcommands = {
      {"help", 2, kCmdLoading | kCmdStale, LatencyCommand, g, "2.8.13",
       "Returns helpful text about the different subcommands.", "O(1)"},
      {"history", 3, kSl | kCmdNoScript, LatencyCommand, g, "2.8.13",
       "Returns timestamp-latency samples for an event.", "O(1)"},
      {"latest", 2, kSl | kCmdNoScript, LatencyCommand, g, "2.8.13",
       "Returns the latest latency samples for all events.", "O(1)"},
      {"doctor", 2, kSl | kCmdNoScript, LatencyCommand, g, "2.8.13",
       "Returns a human-readable latency analysis report.", "O(1)"},
      {"graph", 3, kSl | kCmdNoScript, LatencyCommand, g, "2.8.13",
       "Returns a latency graph for an event.", "O(1)"},
      {"histogram", -2, kSl | kCmdNoScript, LatencyCommand, g, "7.0.0",
       "Returns the cumulative distribution of latencies of a subset or all commands.",
       "O(N) where N is the number of commands with latency information being retrieved."},
      {"reset", -2, kSl | kCmdNoScript, LatencyCommand, g, "2.8.13",
       "Resets the latency data for one or more events.", "O(1)"},
  };
  t->push_back(std::move(latency));
  t->push_back({"monitor", 1, kCmdAdmin | kCmdNoScript | kCmdLoading | kCmdStale, MonitorCommand,
                g, "1.0.0", "Listens for all requests received by the server in real-time.",
                nullptr});
}

}  // namespace server
