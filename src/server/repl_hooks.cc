// Standalone answers of the replication hooks (see repl_hooks.h).
#include "server/repl_hooks.h"

namespace server {

ReplHooks& Repl() {
  static ReplHooks h = {
      [](int, const std::vector<std::string_view>&) {},
      [] {},
      [] {},
      []() -> int64_t { return 0; },
      [] { return false; },
      [] { return false; },
      [] { return false; },
      [] { return false; },
      [](Client*) { return true; },
      [](Client*) { return false; },
      [](Client*) {},
      [](Client*, std::string_view) {},
      [] {},
      [] {},
      [](std::string*) {},
      [] {},
      [](const std::string&, int) {},
      [] {},
      []() -> int64_t { return 0; },
      [] {},
      [](std::vector<CommandSpec>*) {},
      [] {},
  };
  return h;
}

}  // namespace server
