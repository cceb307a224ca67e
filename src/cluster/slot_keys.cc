#include "cluster/slot_keys.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "server/server.h"
#include "server/write_out.h"

namespace cluster {

bool SlotHasKeys(int slot) { return server::GetDb(0)->CountInSlot(slot) > 0; }

size_t DeleteKeysInSlot(int slot) {
  db::Db* d = server::GetDb(0);
  std::vector<std::string_view> views;
  d->KeysInSlot(slot, SIZE_MAX, &views);
  std::vector<std::string> keys(views.begin(), views.end());
  for (auto& k : keys) {
    d->Delete(k);
    server::KeyModified(0, k);
    // As Valkey 8's delKeysInSlot: to the AOF too, or the keys come back at the next start.
    server::WriteOut(0, {"DEL", k});
  }
  return keys.size();
}

}  // namespace cluster
