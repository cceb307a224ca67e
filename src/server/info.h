// INFO text generation, section by section, with Valkey's field names.
#pragma once
#include <string>
#include <vector>

namespace server {
// sections: lower-case names, "default", "all", "everything"; empty means default.
std::string GenInfo(const std::vector<std::string>& sections);
void ResetStats();
}  // namespace server
