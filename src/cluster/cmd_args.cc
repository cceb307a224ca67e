#include "cluster/cmd_args.h"

#include <cstdint>

#include "base/util.h"
#include "cluster/bus_codec.h"
#include "server/client.h"
#include "server/config.h"

namespace cluster {

bool Enabled(server::Client* c) {
  if (server::cfg.cluster_enabled) return true;
  c->R().Error("This instance has cluster support disabled");
  return false;
}

bool SlotArg(server::Client* c, std::string_view s, int* slot) {
  int64_t v;
  if (!base::ParseInt64(s, &v) || v < 0 || v >= kSlots) {
    c->R().Error("Invalid or out of range slot");
    return false;
  }
  *slot = static_cast<int>(v);
  return true;
}

}  // namespace cluster
