// The users of this node and everything that binds them to clients: authentication, the
// permission check of the execution gate, the ACL log, closing the clients of a deleted user,
// and the users' file (aclfile) and config lines.
#include "server/acl.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <deque>
#include <fstream>
#include <map>

#include "base/log.h"
#include "base/sha256.h"
#include "base/time.h"
#include "base/util.h"
#include "net/resp_parser.h"
#include "server/client.h"
#include "server/command.h"
#include "server/config.h"
#include "server/pubsub.h"
#include "server/server.h"

namespace server::acl {
namespace {

std::map<std::string, std::unique_ptr<User>, std::less<>>& Users() {
  static std::map<std::string, std::unique_ptr<User>, std::less<>> users;
  return users;
}

// A user nobody can use: the clients of a deleted user point here until they are closed.
User& Deleted() {
  static User u = [] {
    User d = NewUser("");
    d.enabled = false;
    return d;
  }();
  return u;
}

User DefaultDefinition() {
  User u = NewUser("default");
  std::string err;
  ApplyRules(&u, {"on", "nopass", "~*", "&*", "+@all"}, &err);
  return u;
}

// Constant-time comparison of two hex digests (no early exit on the first difference).
bool SameHash(const std::string& a, const std::string& b) {
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (size_t i = 0; i < a.size(); i++) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

struct LogEntry {
  uint64_t count = 1, id = 0;
  std::string reason, context, object, username, client_info;
  int64_t ctime = 0, mtime = 0;
};
std::deque<LogEntry>& Log() {
  static std::deque<LogEntry> log;
  return log;
}
uint64_t g_next_log_id = 0;
DeniedStats g_denied;

std::vector<std::vector<std::string>>& ConfigUsers() {
  static std::vector<std::vector<std::string>> v;
  return v;
}

const char* ReasonName(Verdict v) {
  switch (v) {
    case Verdict::kDeniedCmd:
      return "command";
    case Verdict::kDeniedKey:
      return "key";
    case Verdict::kDeniedChannel:
      return "channel";
    case Verdict::kDeniedAuth:
      return "auth";
    default:
      return "";
  }
}

// Closes the pub/sub clients of u subscribed to something u may no longer subscribe to.
void ClosePubsubClientsIfNeeded(User* u) {
  for (Client* c : g.clients) {
    if (c->user != u || !c->pubsub) continue;
    bool ok = true;
    for (auto& ch : c->pubsub->channels) ok = ok && ChannelAllowed(*u, ch, false);
    for (auto& ch : c->pubsub->shard_channels) ok = ok && ChannelAllowed(*u, ch, false);
    for (auto& p : c->pubsub->patterns) ok = ok && ChannelAllowed(*u, p, true);
    if (!ok) CloseAsync(c);
  }
}

void CloseClientsOf(User* u, Client* current) {
  for (Client* c : g.clients) {
    if (c->user != u) continue;
    c->user = &Deleted();
    c->authenticated = false;
    if (c == current)
      c->flags |= kCloseAfterReply;
    else
      CloseAsync(c);
  }
}

// Parses user lines ("user <name> <rules...>") into a fresh set; the default user is added
// when the lines do not define it. Errors name the line.
bool BuildUsers(const std::vector<std::vector<std::string>>& lines,
                const std::vector<std::string>& where, const std::vector<int>& linenos,
                std::map<std::string, User, std::less<>>* out, std::string* err) {
  for (size_t i = 0; i < lines.size(); i++) {
    auto& l = lines[i];
    auto fail = [&](const std::string& why) {
      *err = where[i] + why;
      return false;
    };
    if (l.size() < 2 || l[0] != "user") {
      *err = where[i].substr(0, where[i].size() - 2) +
             " should start with user keyword followed by the username. ";
      return false;
    }
    if (!ValidUserName(l[1])) return fail("Usernames can't contain spaces or null characters");
    if (out->count(l[1])) {
      *err = "WARNING: Duplicate user '" + l[1] + "' found on line " + std::to_string(linenos[i]) + ". ";
      return false;
    }
    User u = NewUser(l[1]);
    std::vector<std::string_view> args(l.begin() + 2, l.end());
    std::string full, why;
    if (!ApplyRules(&u, args, &full, &why)) return fail(why + ". ");
    out->emplace(l[1], std::move(u));
  }
  if (!out->count("default")) {
    // Not defined here: all permissions, and requirepass still guards it (never more open
    // than the configuration asks).
    User d = DefaultDefinition();
    std::string e, gt = ">" + cfg.requirepass;
    if (!cfg.requirepass.empty()) ApplyRules(&d, {"resetpass", gt}, &e);
    out->emplace("default", std::move(d));
  }
  return true;
}

// Installs a new set of users: unchanged users keep their object (and clients), changed or
// removed ones have their clients closed.
void InstallUsers(std::map<std::string, User, std::less<>>&& fresh) {
  auto& users = Users();
  for (auto it = users.begin(); it != users.end();) {
    auto f = fresh.find(it->first);
    if (f == fresh.end()) {
      CloseClientsOf(it->second.get(), nullptr);
      it = users.erase(it);
      continue;
    }
    bool same = DescribeUser(f->second) == DescribeUser(*it->second);
    if (!same && it->first != "default") CloseClientsOf(it->second.get(), nullptr);
    *it->second = std::move(f->second);
    if (!same) ClosePubsubClientsIfNeeded(it->second.get());
    fresh.erase(f);
    ++it;
  }
  for (auto& [name, u] : fresh) users.emplace(name, std::make_unique<User>(std::move(u)));
}

}  // namespace

User* FindUser(std::string_view name) {
  auto& users = Users();
  auto it = users.find(name);
  return it == users.end() ? nullptr : it->second.get();
}

User* DefaultUser() {
  User* u = FindUser("default");
  if (!u) u = Users().emplace("default", std::make_unique<User>(DefaultDefinition())).first->second.get();
  return u;
}

std::vector<const User*> AllUsers() {
  DefaultUser();
  std::vector<const User*> v;
  for (auto& [n, u] : Users()) v.push_back(u.get());
  return v;
}

bool SetUser(std::string_view name, const std::vector<std::string_view>& args, std::string* err) {
  DefaultUser();
  User* existing = FindUser(name);
  User copy = existing ? *existing : NewUser(name);
  if (!ApplyRules(&copy, args, err)) return false;
  if (existing) {
    *existing = std::move(copy);
    ClosePubsubClientsIfNeeded(existing);
  } else {
    Users().emplace(std::string(name), std::make_unique<User>(std::move(copy)));
  }
  return true;
}

bool DeleteUser(std::string_view name, Client* c) {
  auto& users = Users();
  auto it = users.find(name);
  if (it == users.end()) return false;
  CloseClientsOf(it->second.get(), c);
  users.erase(it);
  return true;
}

User* Authenticate(std::string_view name, std::string_view pass) {
  User* u = name == "default" ? DefaultUser() : FindUser(name);
  if (!u || !u->enabled) return nullptr;
  if (u->nopass) return u;
  std::string h = base::Sha256Hex(pass);
  bool match = false;
  for (auto& p : u->passwords) match |= SameHash(p, h);
  return match ? u : nullptr;
}

void AttachDefaultUser(Client* c) {
  User* d = DefaultUser();
  c->user = d;
  c->authenticated = d->nopass && d->enabled;
}

void SetRequirePass(std::string_view pass) {
  User* d = DefaultUser();
  std::string err;
  std::string gt = ">" + std::string(pass);
  if (pass.empty())
    ApplyRules(d, {"nopass"}, &err);
  else
    ApplyRules(d, {"resetpass", gt}, &err);
}

std::string DenialText(const User& u, const CommandSpec* cmd, Verdict v, std::string_view obj,
                       bool verbose) {
  switch (v) {
    case Verdict::kDeniedCmd:
      return "User " + u.name + " has no permissions to run the '" + cmd->fullname +
             "' command";
    case Verdict::kDeniedKey:
      return verbose ? "User " + u.name + " has no permissions to access the '" +
                           std::string(obj) + "' key"
                     : "No permissions to access a key";
    case Verdict::kDeniedChannel:
      return verbose ? "User " + u.name + " has no permissions to access the '" +
                           std::string(obj) + "' channel"
                     : "No permissions to access a channel";
    default:
      return "";
  }
}

bool CheckCommand(Client* c, const CommandSpec* cmd, const std::vector<std::string_view>& argv,
                  const char* context, std::string* err) {
  if (!c->user || c->user->unrestricted) return true;
  int pos;
  Verdict v = Check(*c->user, cmd, argv, &pos);
  if (v == Verdict::kOk) return true;
  std::string_view obj = v == Verdict::kDeniedCmd ? std::string_view(cmd->fullname) : argv[pos];
  LogDenial(c, v, context, obj, c->user->name);
  if (std::string_view(context) == "multi") {
    const char* why = v == Verdict::kDeniedCmd   ? "no permission to execute the command or subcommand"
                      : v == Verdict::kDeniedKey ? "no permission to touch the specified keys"
                                                 : "no permission to access one of the channels "
                                                   "used as arguments";
    *err = std::string("-NOPERM ACLs rules changed between the moment the transaction was "
                       "accumulated and the EXEC call. This command is no longer allowed for the "
                       "following reason: ") + why;
    return false;
  }
  *err = "-NOPERM " + DenialText(*c->user, cmd, v, obj, false);
  return false;
}

void LogDenial(Client* c, Verdict v, const char* context, std::string_view object,
               std::string_view username) {
  switch (v) {
    case Verdict::kDeniedCmd:
      g_denied.cmd++;
      break;
    case Verdict::kDeniedKey:
      g_denied.key++;
      break;
    case Verdict::kDeniedChannel:
      g_denied.channel++;
      break;
    case Verdict::kDeniedAuth:
      g_denied.auth++;
      break;
    default:
      break;
  }
  int64_t now = base::MsTime();
  std::string reason = ReasonName(v);
  auto& log = Log();
  // An entry like one of the last few within a minute is counted there (and moves first).
  for (size_t i = 0; i < log.size() && i < 10; i++) {
    LogEntry& e = log[i];
    if (e.reason == reason && e.context == context && e.object == object &&
        e.username == username && now - e.ctime < 60000) {
      LogEntry moved = std::move(e);
      moved.count++;
      moved.mtime = now;
      moved.client_info = ClientInfoLine(c);
      log.erase(log.begin() + static_cast<long>(i));
      log.push_front(std::move(moved));
      return;
    }
  }
  LogEntry e;
  e.id = g_next_log_id++;
  e.reason = reason;
  e.context = context;
  e.object = std::string(object);
  e.username = std::string(username);
  e.client_info = ClientInfoLine(c);
  e.ctime = e.mtime = now;
  log.push_front(std::move(e));
  while (log.size() > static_cast<size_t>(std::max<int64_t>(cfg.acllog_max_len, 0)))
    log.pop_back();
}

void ReplyLog(Client* c, int64_t count) {
  auto& log = Log();
  size_t n = count < 0 ? 0 : std::min(log.size(), static_cast<size_t>(count));
  auto r = c->R();
  r.ArrayLen(static_cast<int64_t>(n));
  int64_t now = base::MsTime();
  for (size_t i = 0; i < n; i++) {
    const LogEntry& e = log[i];
    r.MapLen(10);
    r.Bulk("count");
    r.Int(static_cast<int64_t>(e.count));
    r.Bulk("reason");
    r.Bulk(e.reason);
    r.Bulk("context");
    r.Bulk(e.context);
    r.Bulk("object");
    r.Bulk(e.object);
    r.Bulk("username");
    r.Bulk(e.username);
    r.Bulk("age-seconds");
    r.Double(static_cast<double>(now - e.ctime) / 1000.0);
    r.Bulk("client-info");
    r.Bulk(e.client_info);
    r.Bulk("entry-id");
    r.Int(static_cast<int64_t>(e.id));
    r.Bulk("timestamp-created");
    r.Int(e.ctime);
    r.Bulk("timestamp-last-updated");
    r.Int(e.mtime);
  }
}

void ResetLog() { Log().clear(); }

const DeniedStats& Denied() { return g_denied; }

bool QueueConfigUser(const std::vector<std::string_view>& args, std::string* err) {
  if (args.empty()) {
    *err = "wrong number of arguments";
    return false;
  }
  std::string name(args[0]);
  if (!ValidUserName(name)) {
    *err = "Error in user declaration '" + name + "': Usernames can't contain spaces or null characters";
    return false;
  }
  for (auto& l : ConfigUsers())
    if (l[1] == name) {
      *err = "Error in user declaration '" + name +
             "': Duplicate user found. A user can only be defined once in config files";
      return false;
    }
  User u = NewUser(name);
  std::string full, why;
  if (!ApplyRules(&u, std::vector<std::string_view>(args.begin() + 1, args.end()), &full, &why)) {
    size_t k = full.rfind("': ");  // the reason follows the quoted modifier
    *err = "Error in user declaration '" + name + "': " +
           (k == std::string::npos ? full : full.substr(k + 3));
    return false;
  }
  std::vector<std::string> line{"user"};
  for (auto a : args) line.emplace_back(a);
  ConfigUsers().push_back(std::move(line));
  return true;
}

bool StartUsers(std::string* err) {
  DefaultUser();
  if (!cfg.requirepass.empty()) SetRequirePass(cfg.requirepass);
  if (!ConfigUsers().empty() && !cfg.aclfile.empty()) {
    *err =
        "Configuring Valkey with users defined in valkey.conf and at the same setting an ACL "
        "file path is invalid. This setup is very likely to lead to configuration errors and "
        "security holes, please define either an ACL file or declare users directly in your "
        "valkey.conf, but not both.";
    return false;
  }
  if (!cfg.aclfile.empty()) {
    if (LoadFile(err)) return true;
    *err = "Aborting Valkey startup because of ACL errors: " + *err;
    return false;
  }
  if (ConfigUsers().empty()) return true;
  std::map<std::string, User, std::less<>> fresh;
  std::vector<std::string> where(ConfigUsers().size());
  std::vector<int> linenos(ConfigUsers().size());
  if (!BuildUsers(ConfigUsers(), where, linenos, &fresh, err)) return false;
  InstallUsers(std::move(fresh));
  return true;
}

bool LoadFile(std::string* err) {
  if (cfg.aclfile.empty()) {
    *err =
        "This instance is not configured to use an ACL file. You may want to specify users via "
        "the ACL SETUSER command and then issue a CONFIG REWRITE (assuming you have a "
        "configuration file set) in order to store users in the configuration.";
    return false;
  }
  std::string text;
  if (!base::ReadWholeFile(cfg.aclfile, &text)) {
    *err = "Error loading ACLs, opening file '" + cfg.aclfile + "': " + strerror(errno);
    return false;
  }
  std::vector<std::vector<std::string>> lines;
  std::vector<std::string> where;
  std::vector<int> linenos;
  size_t start = 0;
  int lineno = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string l = text.substr(start, end - start);
    start = end + 1;
    lineno++;
    while (!l.empty() && (l.back() == '\r' || isspace(static_cast<unsigned char>(l.back()))))
      l.pop_back();
    size_t i = 0;
    while (i < l.size() && isspace(static_cast<unsigned char>(l[i]))) i++;
    if (i == l.size()) continue;  // blank lines only: a '#' line is an error, as in Valkey
    std::vector<std::string> argv;
    std::string pos = cfg.aclfile + ":" + std::to_string(lineno) + ": ";
    if (!net::SplitArgs(l, &argv)) {
      *err = pos + "unbalanced quotes in acl line. ";
      return false;
    }
    lines.push_back(std::move(argv));
    where.push_back(pos);
    linenos.push_back(lineno);
  }
  std::map<std::string, User, std::less<>> fresh;
  if (!BuildUsers(lines, where, linenos, &fresh, err)) {
    *err += "WARNING: ACL errors detected, no change to the previously active ACL rules was "
            "performed";
    return false;
  }
  InstallUsers(std::move(fresh));
  return true;
}

bool SaveFile(std::string* err) {
  if (cfg.aclfile.empty()) return LoadFile(err);  // the same "not configured" error
  std::string out;
  for (const User* u : AllUsers()) out += DescribeUser(*u) + "\n";
  std::string tmp = cfg.aclfile + ".tmp-" + std::to_string(getpid());
  FILE* f = fopen(tmp.c_str(), "w");
  bool ok = f && fwrite(out.data(), 1, out.size(), f) == out.size();
  ok = ok && fflush(f) == 0 && fsync(fileno(f)) == 0;
  int saved = errno;
  if (f) fclose(f);
  if (!ok || rename(tmp.c_str(), cfg.aclfile.c_str()) == -1) {
    if (ok) saved = errno;
    unlink(tmp.c_str());
    LOG_WARNING("Saving ACLs to '%s': %s", cfg.aclfile.c_str(), strerror(saved));
    *err = "There was an error trying to save the ACLs. Please check the server logs for more "
           "information";
    return false;
  }
  return true;
}

std::vector<std::string> ConfigUserLines() {
  std::vector<std::string> out;
  if (!cfg.aclfile.empty()) return out;
  for (const User* u : AllUsers()) out.push_back(DescribeUser(*u));
  return out;
}

}  // namespace server::acl
