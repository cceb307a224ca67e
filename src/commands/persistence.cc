// Persistence commands: SAVE and BGSAVE (LASTSAVE lives with the server commands).
#include "server/persistence.h"

#include "base/util.h"
#include "commands/common.h"
#include "server/aof.h"

namespace cmd {
namespace {
using namespace server;

void SaveCommand(Client* c) {
  if (BgsaveInProgress()) return c->R().Error("Background save already in progress");
  if (!SaveForeground()) return c->R().Error("-ERR");
  c->R().Ok();
}

void BgsaveCommand(Client* c) {
  bool schedule = false;
  if (c->argv.size() > 1) {
    if (c->argv.size() == 2 && base::EqualsNoCase(c->argv[1], "schedule"))
      schedule = true;
    else
      return c->R().Error(kErrSyntax);
  }
  if (BgsaveInProgress()) return c->R().Error("Background save already in progress");
  if (OtherChildActive() || g.in_exec) {
    // One child at a time; and a fork inside a transaction would split it: run it from cron.
    if (!schedule && !g.in_exec)
      return c->R().Error(
          "Another child process is active (AOF?): can't BGSAVE right now. Use BGSAVE SCHEDULE "
          "in order to schedule a BGSAVE whenever possible.");
    ScheduleBgsave();
    return c->R().Simple("Background saving scheduled");
  }
  if (!StartBgsave()) return c->R().Error("-ERR");
  c->R().Simple("Background saving started");
}

void BgrewriteaofCommand(Client* c) {
  if (AofRewriteInProgress())
    return c->R().Error("Background append only file rewriting already in progress");
  if (BgsaveInProgress() || OtherChildActive() || g.in_exec) {
    // One child at a time (and no fork inside a transaction): it starts from cron.
    AofScheduleRewrite();
    return c->R().Simple("Background append only file rewriting scheduled");
  }
  std::string err;
  if (!AofStartRewrite(&err)) {
    if (err.empty()) return c->R().Simple("Background append only file rewriting scheduled");
    return c->R().Error(err);
  }
  c->R().Simple("Background append only file rewriting started");
}

}  // namespace
}  // namespace cmd

namespace server {
void RegisterPersistenceCommands(std::vector<CommandSpec>* t) {
  using namespace cmd;
  const char* g = "server";
  t->push_back({"save", 1, kCmdAdmin | kCmdNoScript | kCmdNoMulti | kCmdNoAsyncLoading, SaveCommand, g, "1.0.0",
                "Synchronously saves the database(s) to disk.",
                "O(N) where N is the total number of keys in all databases"});
  t->push_back({"bgsave", -1, kCmdAdmin | kCmdNoScript | kCmdNoAsyncLoading, BgsaveCommand, g, "1.0.0",
                "Asynchronously saves the database(s) to disk.", "O(1)"});
  t->push_back({"bgrewriteaof", 1, kCmdAdmin | kCmdNoScript | kCmdNoAsyncLoading, BgrewriteaofCommand, g, "1.0.0",
                "Asynchronously rewrites the append-only file to disk.", "O(1)"});
}
}  // namespace server
