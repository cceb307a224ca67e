// Scripting (EVAL, EVALSHA, their _RO forms, SCRIPT, FCALL, FCALL_RO, FUNCTION) and MODULE:
// refused on purpose. The node has no Lua engine (nothing outside libc, the C++ library and
// jemalloc) and loads no modules. Each answers one error that says so, after the usual gate:
// the declared keys of EVAL and FCALL still route (MOVED, CROSSSLOT) as Valkey 8's do, so a
// cluster client learns where a script would run before it learns that it cannot.
#include "commands/common.h"

namespace cmd {
namespace {

using server::Client;
using server::CommandSpec;
using namespace server;  // flags

constexpr const char* kNoScripting =
    "scripting is not supported by this node (it has no Lua engine): EVAL, EVALSHA, SCRIPT, "
    "FCALL and FUNCTION are not available";
constexpr const char* kNoModules = "modules are not supported by this node";

void NoScripting(Client* c) { c->R().Error(kNoScripting); }
void NoModules(Client* c) { c->R().Error(kNoModules); }

}  // namespace
}  // namespace cmd

namespace server {
void RegisterUnsupportedCommands(std::vector<CommandSpec>* t) {
  using namespace cmd;
  const char* g = "scripting";
  const uint32_t kS = kCmdNoScript | kCmdStale | kCmdSkipMonitor | kCmdNoMandatoryKeys;
  for (const char* name : {"eval", "evalsha", "fcall"})
    t->push_back({name, -3, kS, NoScripting, g, "2.6.0", "Not supported by this node (no Lua).",
                  "O(1)"});
  for (const char* name : {"eval_ro", "evalsha_ro", "fcall_ro"})
    t->push_back({name, -3, kS | kCmdReadonly, NoScripting, g, "7.0.0",
                  "Not supported by this node (no Lua).", "O(1)"});
  t->push_back({"script", -2, kCmdNoScript, NoScripting, g, "2.6.0",
                "Not supported by this node (no Lua).", "O(1)"});
  t->push_back({"function", -2, kCmdNoScript, NoScripting, g, "7.0.0",
                "Not supported by this node (no Lua).", "O(1)"});
  t->push_back({"module", -2, kCmdAdmin | kCmdNoScript, NoModules, "server", "4.0.0",
                "Not supported by this node (no modules).", "O(1)"});
}
}  // namespace server
