// Connection commands: PING, ECHO, QUIT, RESET, AUTH, HELLO, SELECT and CLIENT.
#include <climits>

#include "base/time.h"
#include "base/util.h"
#include "commands/common.h"
#include "server/acl.h"
#include "server/tracking.h"
#include "server/blocking.h"
#include "server/config.h"
#include "server/dispatch.h"
#include "server/pubsub.h"
#include "server/transactions.h"
#include "server/version.h"

namespace cmd {
namespace {
using namespace server;

void PingCommand(Client* c) {
  if (c->argv.size() > 2) return ReplyArity(c, c->cmd);
  if (c->pubsub && c->resp == 2) {  // RESP2 subscriber mode: ["pong", message]
    auto r = c->R();
    r.ArrayLen(2);
    r.Bulk("pong");
    r.Bulk(c->argv.size() == 2 ? c->argv[1] : std::string_view());
    return;
  }
  if (c->argv.size() == 2)
    c->R().Bulk(c->argv[1]);
  else
    c->R().Simple("PONG");
}

void EchoCommand(Client* c) { c->R().Bulk(c->argv[1]); }

void QuitCommand(Client* c) {
  c->R().Ok();
  c->flags |= kCloseAfterReply;
}

// Authenticates c as user, or logs the failure (object: the command, AUTH or HELLO).
bool Authenticate(Client* c, std::string_view user, std::string_view pass) {
  acl::User* u = acl::Authenticate(user, pass);
  if (!u) {
    acl::LogDenial(c, acl::Verdict::kDeniedAuth, "toplevel", c->cmd ? c->cmd->fullname : "auth",
                   user);
    c->R().Error("-WRONGPASS invalid username-password pair or user is disabled.");
    return false;
  }
  c->user = u;
  c->authenticated = true;
  return true;
}

void AuthCommand(Client* c) {
  if (c->argv.size() > 3) return c->R().Error(kErrSyntax);
  std::string_view user = "default", pass;
  if (c->argv.size() == 2) {
    pass = c->argv[1];
    if (acl::DefaultUser()->nopass)
      return c->R().Error(
          "AUTH <password> called without any password configured for the default user. Are "
          "you sure your configuration is correct?");
  } else {
    user = c->argv[1];
    pass = c->argv[2];
  }
  if (Authenticate(c, user, pass)) c->R().Ok();
}

bool ValidClientName(std::string_view n) {
  for (char ch : n)
    if (ch < '!' || ch > '~') return false;
  return true;
}

void HelloCommand(Client* c) {
  auto& a = c->argv;
  int64_t ver = 0;
  size_t i = 1;
  if (a.size() >= 2) {
    if (!base::ParseInt64(a[1], &ver))
      return c->R().Error("Protocol version is not an integer or out of range");
    if (ver < 2 || ver > 3) return c->R().Error("-NOPROTO unsupported protocol version");
    i = 2;
  }
  std::string_view setname;
  bool has_setname = false;
  for (; i < a.size(); i++) {
    bool more = i + 1 < a.size();
    if (base::EqualsNoCase(a[i], "auth") && i + 2 < a.size()) {
      if (!Authenticate(c, a[i + 1], a[i + 2])) return;
      i += 2;
    } else if (base::EqualsNoCase(a[i], "setname") && more) {
      setname = a[++i];
      has_setname = true;
      if (!ValidClientName(setname))
        return c->R().Error("Client names cannot contain spaces, newlines or special characters.");
    } else {
      return c->R().Error("Syntax error in HELLO option '" + std::string(a[i]) + "'");
    }
  }
  if (!c->authenticated)
    return c->R().Error(
        "-NOAUTH HELLO must be called with the client already authenticated, "
        "otherwise the HELLO <proto> AUTH <user> <pass> option can be used to "
        "authenticate the client and select the RESP protocol version at the "
        "same time");
  if (has_setname) c->name = std::string(setname);
  if (ver) c->resp = static_cast<int>(ver);
  auto r = c->R();
  r.MapLen(7);
  r.Bulk("server");
  r.Bulk(HelloServerName());
  r.Bulk("version");
  r.Bulk(HelloVersion());
  r.Bulk("proto");
  r.Int(c->resp);
  r.Bulk("id");
  r.Int(static_cast<int64_t>(c->id));
  r.Bulk("mode");
  r.Bulk(cfg.cluster_enabled ? "cluster" : "standalone");
  r.Bulk("role");
  r.Bulk(db::GetEnv().replica ? "replica" : "master");
  r.Bulk("modules");
  r.ArrayLen(0);
}

void SelectCommand(Client* c) {
  int64_t id;
  if (!base::ParseInt64(c->argv[1], &id) || id < INT_MIN || id > INT_MAX)
    return c->R().Error(kErrNotInt);
  if (cfg.cluster_enabled && id != 0) return c->R().Error("SELECT is not allowed in cluster mode");
  if (id < 0 || id >= NumDbs()) return c->R().Error("DB index is out of range");
  SelectDb(c, static_cast<int>(id));
  c->R().Ok();
}

void ResetCommand(Client* c) {
  DiscardTransaction(c);
  UnwatchAll(c);
  PubsubUnsubscribeAll(c);
  SelectDb(c, 0);
  c->resp = 2;
  c->name.clear();
  c->flags &= ~(kReplyOff | kReplySkip | kReplySkipNext | kReadonly | kAsking | kNoEvict);
  acl::AttachDefaultUser(c);
  TrackingDisable(c);
  c->R().Simple("RESET");
}

void ReadonlyCommand(Client* c) {
  c->flags |= kReadonly;
  c->R().Ok();
}
void ReadwriteCommand(Client* c) {
  c->flags &= ~kReadonly;
  c->R().Ok();
}

// ---- CLIENT ----
void ClientId(Client* c) { c->R().Int(static_cast<int64_t>(c->id)); }

void ClientSetName(Client* c) {
  if (!ValidClientName(c->argv[2]))
    return c->R().Error("Client names cannot contain spaces, newlines or special characters.");
  c->name = std::string(c->argv[2]);
  c->R().Ok();
}

void ClientGetName(Client* c) {
  if (c->name.empty())
    c->R().Null();
  else
    c->R().Bulk(c->name);
}

void ClientSetInfo(Client* c) {
  if (!base::EqualsNoCase(c->argv[2], "lib-name") && !base::EqualsNoCase(c->argv[2], "lib-ver"))
    return c->R().Error("Unrecognized option '" + std::string(c->argv[2]) + "'");
  if (!ValidClientName(c->argv[3]))
    return c->R().Error(std::string(base::ToLower(c->argv[2])) +
                        " cannot contain spaces, newlines or special characters.");
  if (base::EqualsNoCase(c->argv[2], "lib-name"))
    c->lib_name = std::string(c->argv[3]);
  else
    c->lib_ver = std::string(c->argv[3]);
  c->R().Ok();
}

// Client classes of CLIENT LIST/KILL TYPE (replication clients come with replication).
enum ClientType { kTypeNormal, kTypeMaster, kTypeReplica, kTypePubsub, kTypeUnknown };
ClientType ParseClientType(std::string_view type) {
  if (base::EqualsNoCase(type, "normal")) return kTypeNormal;
  if (base::EqualsNoCase(type, "master")) return kTypeMaster;
  if (base::EqualsNoCase(type, "replica") || base::EqualsNoCase(type, "slave")) return kTypeReplica;
  if (base::EqualsNoCase(type, "pubsub")) return kTypePubsub;
  return kTypeUnknown;
}
ClientType TypeOf(const Client* c) {
  if (c->flags & kPrimary) return kTypeMaster;
  if (c->flags & kReplica) return kTypeReplica;
  return c->pubsub ? kTypePubsub : kTypeNormal;
}

void ClientList(Client* c) {
  auto& a = c->argv;
  std::vector<uint64_t> ids;
  bool type_filter = false;
  ClientType type = kTypeNormal;
  for (size_t i = 2; i < a.size(); i++) {
    if (base::EqualsNoCase(a[i], "type") && i + 1 < a.size()) {
      type = ParseClientType(a[++i]);
      if (type == kTypeUnknown)
        return c->R().Error("Unknown client type '" + std::string(a[i]) + "'");
      type_filter = true;
    } else if (base::EqualsNoCase(a[i], "id") && i + 1 < a.size()) {
      for (i++; i < a.size(); i++) {
        uint64_t id;
        if (!base::ParseUint64(a[i], &id) || id == 0) return c->R().Error("Invalid client ID");
        ids.push_back(id);
      }
    } else {
      return c->R().Error(kErrSyntax);
    }
  }
  std::string out;
  for (Client* x : g.clients) {
    if (type_filter && TypeOf(x) != type) continue;
    if (!ids.empty() && std::find(ids.begin(), ids.end(), x->id) == ids.end()) continue;
    out += ClientInfoLine(x) + "\n";
  }
  c->R().Verbatim(out);
}

void ClientInfo(Client* c) { c->R().Verbatim(ClientInfoLine(c) + "\n"); }

void ClientKill(Client* c) {
  auto& a = c->argv;
  if (a.size() == 3) {  // old form: CLIENT KILL addr:port
    for (Client* x : g.clients)
      if (x->addr == a[2]) {
        if (x == c)
          c->flags |= kCloseAfterReply;
        else
          CloseAsync(x);
        return c->R().Ok();
      }
    return c->R().Error("No such client");
  }
  if ((a.size() - 2) % 2 != 0) return c->R().Error(kErrSyntax);
  uint64_t id = 0;
  std::string addr, laddr;
  bool skipme = true, type_filter = false;
  const acl::User* user = nullptr;
  ClientType type = kTypeNormal;
  int64_t maxage = 0;
  for (size_t i = 2; i < a.size(); i += 2) {
    std::string_view k = a[i], v = a[i + 1];
    if (base::EqualsNoCase(k, "id")) {
      if (!base::ParseUint64(v, &id) || id == 0)
        return c->R().Error("client-id should be greater than 0");
    } else if (base::EqualsNoCase(k, "addr")) {
      addr = v;
    } else if (base::EqualsNoCase(k, "laddr")) {
      laddr = v;
    } else if (base::EqualsNoCase(k, "type")) {
      type = ParseClientType(v);
      if (type == kTypeUnknown) return c->R().Error("Unknown client type '" + std::string(v) + "'");
      type_filter = true;
    } else if (base::EqualsNoCase(k, "user")) {
      user = acl::FindUser(v);
      if (!user) return c->R().Error("No such user '" + std::string(v) + "'");
    } else if (base::EqualsNoCase(k, "skipme")) {
      if (base::EqualsNoCase(v, "yes"))
        skipme = true;
      else if (base::EqualsNoCase(v, "no"))
        skipme = false;
      else
        return c->R().Error(kErrSyntax);
    } else if (base::EqualsNoCase(k, "maxage")) {
      if (!base::ParseInt64(v, &maxage))
        return c->R().Error("maxage is not an integer or out of range");
      if (maxage <= 0) return c->R().Error("maxage should be greater than 0");
    } else {
      return c->R().Error(kErrSyntax);
    }
  }
  int64_t killed = 0;
  int64_t now = base::MsTime();
  for (Client* x : g.clients) {
    if (id && x->id != id) continue;
    if (!addr.empty() && x->addr != addr) continue;
    if (!laddr.empty() && x->laddr != laddr) continue;
    if (type_filter && TypeOf(x) != type) continue;
    if (user && x->user != user) continue;
    if (maxage && (now - x->ctime_ms) / 1000 < maxage) continue;
    if (x == c && skipme) continue;
    if (x == c)
      c->flags |= kCloseAfterReply;
    else
      CloseAsync(x);
    killed++;
  }
  c->R().Int(killed);
}

void ClientPause(Client* c) {
  int64_t ms;
  if (!base::ParseInt64(c->argv[2], &ms))
    return c->R().Error("timeout is not an integer or out of range");
  if (ms < 0) return c->R().Error("timeout is negative");
  bool all = true;
  if (c->argv.size() == 4) {
    if (base::EqualsNoCase(c->argv[3], "write"))
      all = false;
    else if (!base::EqualsNoCase(c->argv[3], "all"))
      return c->R().Error("CLIENT PAUSE mode must be WRITE or ALL");
  } else if (c->argv.size() > 4) {
    return c->R().Error(kErrSyntax);
  }
  int64_t now = base::MsTime(), end = now + ms;
  // A stronger or longer pause wins over one still running; an ended one counts for nothing
  // (its ALL must not turn a later WRITE pause into ALL).
  bool running = g.pause_end_ms > now;
  g.pause_all = all || (running && g.pause_all);
  if (!running || end > g.pause_end_ms) g.pause_end_ms = end;
  db::GetEnv().keep_expired = true;
  c->R().Ok();
}

void ClientUnpause(Client* c) {
  g.pause_end_ms = 0;
  g.pause_all = false;
  db::GetEnv().keep_expired = WritesPaused();
  UnpauseClientsIfDue();
  c->R().Ok();
}

void ClientReply(Client* c) {
  std::string_view m = c->argv[2];
  if (base::EqualsNoCase(m, "on")) {
    c->flags &= ~(kReplyOff | kReplySkip | kReplySkipNext);
    c->R().Ok();
  } else if (base::EqualsNoCase(m, "off")) {
    c->flags |= kReplyOff;
  } else if (base::EqualsNoCase(m, "skip")) {
    if (!(c->flags & kReplyOff)) c->flags |= kReplySkipNext;
  } else {
    c->R().Error(kErrSyntax);
  }
}

void ClientNoEvict(Client* c) {
  if (base::EqualsNoCase(c->argv[2], "on"))
    c->flags |= kNoEvict;
  else if (base::EqualsNoCase(c->argv[2], "off"))
    c->flags &= ~kNoEvict;
  else
    return c->R().Error(kErrSyntax);
  c->R().Ok();
}

// CLIENT CAPA capability...: the client says what it understands (Valkey 8.0); unknown
// capabilities are ignored. "redirect": a standalone replica answers its writes, and its reads
// unless READONLY, with -REDIRECT <primary> (dispatch.cc).
void ClientCapa(Client* c) {
  for (size_t i = 2; i < c->argv.size(); i++)
    if (base::EqualsNoCase(c->argv[i], "redirect")) c->flags |= kCapaRedirect;
  c->R().Ok();
}

void ClientNoTouch(Client* c) {
  if (base::EqualsNoCase(c->argv[2], "on"))
    c->flags |= kNoTouch;
  else if (base::EqualsNoCase(c->argv[2], "off"))
    c->flags &= ~kNoTouch;
  else
    return c->R().Error(kErrSyntax);
  c->R().Ok();
}


void ClientUnblock(Client* c) {
  uint64_t id;
  if (!base::ParseUint64(c->argv[2], &id)) return c->R().Error(kErrNotInt);
  bool with_error = false;
  if (c->argv.size() == 4) {
    if (base::EqualsNoCase(c->argv[3], "error"))
      with_error = true;
    else if (!base::EqualsNoCase(c->argv[3], "timeout"))
      return c->R().Error("CLIENT UNBLOCK reason should be TIMEOUT or ERROR");
  } else if (c->argv.size() > 4) {
    return c->R().Error(kErrSyntax);
  }
  auto it = g.clients_by_id.find(id);
  bool done = it != g.clients_by_id.end() && UnblockByRequest(it->second, with_error);
  c->R().Int(done ? 1 : 0);
}

void ClientHelp(Client* c) {
  ReplyHelp(c, "CLIENT",
            {"GETNAME",
             "    Return the name of the current connection.",
             "ID",
             "    Return the ID of the current connection.",
             "INFO",
             "    Return information about the current client connection.",
             "KILL <ip:port>",
             "    Kill connection made from <ip:port>.",
             "KILL <option> <value> [<option> <value> [...]]",
             "    Kill connections. Options are: ID, ADDR, LADDR, TYPE, USER, SKIPME, MAXAGE.",
             "LIST [TYPE (NORMAL|MASTER|REPLICA|PUBSUB)] [ID <id> [<id> ...]]",
             "    Return information about client connections.",
             "PAUSE <timeout> [WRITE|ALL]",
             "    Suspend clients for <timeout> milliseconds.",
             "UNPAUSE",
             "    Stop the current client pause, resuming traffic.",
             "REPLY (ON|OFF|SKIP)",
             "    Control the replies sent to the current connection.",
             "SETNAME <name>",
             "    Assign the name <name> to the current connection.",
             "SETINFO <LIB-NAME|LIB-VER> <value>",
             "    Record client library details."});
}

}  // namespace
}  // namespace cmd

namespace server {
void RegisterConnectionCommands(std::vector<CommandSpec>* t) {
  using namespace cmd;
  const char* g = "connection";
  const uint32_t kConn = kCmdNoScript | kCmdLoading | kCmdStale;
  t->push_back(
      {"ping", -1, kCmdFast, PingCommand, g, "1.0.0", "Checks that the server answers.", "O(1)"});
  t->push_back({"echo", 2, kCmdLoading | kCmdStale | kCmdFast, EchoCommand, g, "1.0.0", "Returns its argument.", "O(1)"});
  t->push_back({"quit", -1, kCmdAllowBusy | kCmdNoScript | kCmdNoAuth | kCmdLoading | kCmdStale | kCmdFast,
                QuitCommand, g, "1.0.0", "Ends the connection after replying OK.", "O(1)"});
  t->push_back({"reset", 1, kConn | kCmdNoAuth | kCmdFast | kCmdAllowBusy, ResetCommand, g, "6.2.0",
                "Returns the connection to its initial state.", "O(1)"});
  t->push_back({"auth", -2, kConn | kCmdNoAuth | kCmdFast | kCmdAllowBusy, AuthCommand, g, "1.0.0",
                "Logs the connection in.", "O(N)"});
  t->push_back({"hello", -1, kConn | kCmdNoAuth | kCmdFast | kCmdAllowBusy, HelloCommand, g,
                "6.0.0", "Negotiates the protocol version and describes the server.", "O(1)"});
  t->push_back({"select", 2, kCmdLoading | kCmdStale | kCmdFast, SelectCommand, g, "1.0.0",
                "Switches the connection to another database.", "O(1)"});
  t->push_back({"readonly", 1, kCmdLoading | kCmdStale | kCmdFast, ReadonlyCommand, "cluster",
                "3.0.0",
                "Lets a cluster replica serve reads of its primary's slots; while a slot "
                "migrates it redirects like its primary: -ASK for a key moved, -TRYAGAIN for a "
                "partly moved multi-key request, -MOVED for a slot of another shard.",
                "O(1)"});
  t->push_back({"readwrite", 1, kCmdLoading | kCmdStale | kCmdFast, ReadwriteCommand, "cluster",
                "3.0.0", "Ends READONLY mode.", "O(1)"});
  CommandSpec client{"client",
                     -2,
                     0,
                     nullptr,
                     g,
                     "2.4.0",
                     "Inspects and manages client connections.",
                     "Depends on subcommand."};
  client.subcommands = {
      {"id", 2, kConn, ClientId, g, "5.0.0", "The unique ID of the connection.", "O(1)"},
      {"setname", 3, kConn, ClientSetName, g, "2.6.9", "Names the connection.", "O(1)"},
      {"getname", 2, kConn, ClientGetName, g, "2.6.9", "The name of the connection.", "O(1)"},
      {"setinfo", 4, kConn, ClientSetInfo, g, "7.2.0", "Records client library name or version.",
       "O(1)"},
      {"list", -2, kCmdAdmin | kConn, ClientList, g, "2.4.0", "Describes the open connections.",
       "O(N)"},
      {"info", 2, kConn, ClientInfo, g, "6.2.0", "Describes this connection.", "O(1)"},
      {"kill", -3, kCmdAdmin | kConn, ClientKill, g, "2.4.0", "Closes connections.", "O(N)"},
      {"pause", -3, kCmdAdmin | kConn, ClientPause, g, "3.0.0",
       "Holds clients' commands for a while.", "O(1)"},
      {"unpause", 2, kCmdAdmin | kConn, ClientUnpause, g, "6.2.0", "Ends a CLIENT PAUSE.", "O(N)"},
      {"reply", 3, kConn, ClientReply, g, "3.2.0", "Turns replies to this connection on or off.",
       "O(1)"},
      {"no-evict", 3, kCmdAdmin | kConn, ClientNoEvict, g, "7.0.0",
       "Exempts the connection from client eviction.", "O(1)"},
      {"capa", -3, kConn, ClientCapa, g, "8.0.0", "Declares what the client understands.",
       "O(1)"},
      {"no-touch", 3, kConn, ClientNoTouch, g, "7.2.0",
       "Keeps this connection's reads from touching LRU/LFU.", "O(1)"},
      {"unblock", -3, kCmdAdmin | kConn, ClientUnblock, g, "5.0.0",
       "Ends the block of a blocked client.", "O(log N)"},
      {"getredir", 2, kConn, ClientGetRedirCommand, g, "6.0.0",
       "Returns the client ID to which the connection's tracking notifications are redirected.",
       "O(1)"},
      {"tracking", -3, kConn, ClientTrackingCommand, g, "6.0.0",
       "Controls server-assisted client-side caching for the connection.",
       "O(1). Some options may introduce additional complexity."},
      {"caching", 3, kConn, ClientCachingCommand, g, "6.0.0",
       "Instructs the server whether to track the keys in the next request.", "O(1)"},
      {"trackinginfo", 2, kConn, ClientTrackingInfoCommand, g, "6.2.0",
       "Returns information about server-assisted client-side caching for the connection.",
       "O(1)"},
      {"help", 2, kCmdLoading | kCmdStale, ClientHelp, g, "5.0.0", "Lists the CLIENT subcommands.",
       "O(1)"},
  };
  t->push_back(std::move(client));
}
}  // namespace server
