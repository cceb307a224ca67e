// SORT and SORT_RO: a list, set or sorted set sorted numerically or lexicographically, by its
// own elements or by other keys (BY pattern, hash fields with ->), with GET patterns, LIMIT,
// ASC|DESC, ALPHA and (SORT only) STORE into a list. Behaviour and texts as Valkey 8.
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "base/crc16.h"
#include "base/util.h"
#include "commands/common.h"
#include "db/hash.h"
#include "db/list.h"
#include "db/set.h"
#include "db/zset.h"
#include "server/acl.h"
#include "server/config.h"
#include "server/notify.h"

namespace cmd {
namespace {

// BY and GET patterns read keys the ACL check never saw: the user must read every key.
bool FullKeyAccess(server::Client* c) {
  return !c->user ||
         server::acl::HasUnrestrictedKeyAccess(*c->user, c->cmd, c->argv, server::acl::kPermRead);
}

// The slot every key a pattern may form falls in, or -1 when they may fall in several
// (Valkey's rule: a wildcard or an escape before a non-empty hash tag means any slot).
int PatternSlot(std::string_view p) {
  int open = -1;
  for (size_t i = 0; i < p.size(); i++) {
    char ch = p[i];
    if (ch == '*' || ch == '?' || ch == '[' || ch == '\\') return -1;
    if (open == -1 && ch == '{') {
      open = static_cast<int>(i);
    } else if (open >= 0 && ch == '}' && i == static_cast<size_t>(open) + 1) {
      open = -2;  // "{}": the whole key is hashed
    } else if (open >= 0 && ch == '}') {
      return base::Crc16(p.data() + open + 1, i - open - 1) & 0x3FFF;
    }
  }
  return base::Crc16(p.data(), p.size()) & 0x3FFF;
}

// The value a pattern names for an element: "#" is the element; the first '*' is replaced by
// it; "key->field" reads a hash field. Missing keys and wrong types give nothing.
std::optional<std::string> ByPattern(Client* c, std::string_view pattern, std::string_view elem) {
  if (pattern == "#") return std::string(elem);
  size_t star = pattern.find('*');
  if (star == std::string_view::npos) return std::nullopt;
  size_t arrow = pattern.find("->", star + 1);
  std::string_view field;
  std::string_view tail = pattern.substr(star + 1);
  if (arrow != std::string_view::npos && arrow + 2 < pattern.size()) {
    field = pattern.substr(arrow + 2);
    tail = pattern.substr(star + 1, arrow - star - 1);
  }
  std::string key;
  key.reserve(pattern.size() + elem.size());
  key.append(pattern.substr(0, star)).append(elem).append(tail);
  db::Obj* o = LookupRead(c, key);
  if (!o) return std::nullopt;
  if (!field.empty()) {
    if (o->type() != db::kHash) return std::nullopt;
    std::string v;
    if (!db::HashGet(o, field, &v)) return std::nullopt;
    return v;
  }
  if (o->type() != db::kString) return std::nullopt;
  char buf[32];
  return std::string(o->str(buf));
}

// A weight as Valkey reads it, with strtod (leading blanks, hex, inf; a NUL byte ends it);
// anything left over, a range error or NaN is not a score.
bool Score(const std::string& s, double* out) {
  int64_t v;
  if (s.size() <= 20 && base::ParseInt64(s, &v)) {  // the common case: integers, no strtod
    *out = static_cast<double>(v);
    return true;
  }
  errno = 0;
  char* end = nullptr;
  *out = strtod(s.c_str(), &end);
  return *end == '\0' && errno != ERANGE && !std::isnan(*out);
}

struct Item {
  std::string elem;
  double score = 0;
  std::optional<std::string> cmp;  // ALPHA BY: the value compared (nothing sorts first)
};

void SortGeneric(Client* c, bool readonly) {
  auto& a = c->argv;
  bool desc = false, alpha = false, dontsort = false;
  int64_t limit_start = 0, limit_count = -1;
  std::optional<std::string> sortby, storekey;
  std::vector<std::string> gets;
  auto r = c->R();
  for (size_t j = 2; j < a.size(); j++) {
    size_t left = a.size() - j - 1;
    if (base::EqualsNoCase(a[j], "asc")) {
      desc = false;
    } else if (base::EqualsNoCase(a[j], "desc")) {
      desc = true;
    } else if (base::EqualsNoCase(a[j], "alpha")) {
      alpha = true;
    } else if (base::EqualsNoCase(a[j], "limit") && left >= 2) {
      if (!server::ArgInt(c, a[j + 1], &limit_start) ||
          !server::ArgInt(c, a[j + 2], &limit_count))
        return;
      j += 2;
    } else if (!readonly && base::EqualsNoCase(a[j], "store") && left >= 1) {
      storekey = std::string(a[j + 1]);
      j++;
    } else if (base::EqualsNoCase(a[j], "by") && left >= 1) {
      sortby = std::string(a[j + 1]);
      if (sortby->find('*') == std::string::npos) {
        dontsort = true;  // BY nosort, or any constant
      } else if (server::cfg.cluster_enabled && PatternSlot(*sortby) != base::KeySlot(a[1])) {
        return r.Error(
            "BY option of SORT denied in Cluster mode when keys formed by the pattern may be in "
            "different slots.");
      } else if (!FullKeyAccess(c)) {
        return r.Error("BY option of SORT denied due to insufficient ACL permissions.");
      }
      j++;
    } else if (base::EqualsNoCase(a[j], "get") && left >= 1) {
      if (server::cfg.cluster_enabled && a[j + 1] != "#" &&
          PatternSlot(a[j + 1]) != base::KeySlot(a[1]))
        return r.Error(
            "GET option of SORT denied in Cluster mode when keys formed by the pattern may be "
            "in different slots.");
      if (!FullKeyAccess(c))
        return r.Error("GET option of SORT denied due to insufficient ACL permissions.");
      gets.emplace_back(a[j + 1]);
      j++;
    } else {
      return r.Error(server::kErrSyntax);
    }
  }
  db::Obj* o = LookupRead(c, a[1]);
  if (o && o->type() != db::kList && o->type() != db::kSet && o->type() != db::kZSet)
    return r.Error(server::kErrWrongType);
  // A set has no order of its own: stored (replicated) results are sorted to be the same
  // everywhere.
  if (dontsort && o && o->type() == db::kSet && storekey) {
    dontsort = false;
    alpha = true;
    sortby.reset();
  }

  std::vector<Item> items;
  if (o)
    items.reserve(o->type() == db::kList   ? db::ListLen(o)
                  : o->type() == db::kSet ? db::SetLen(o)
                                          : db::ZLen(o));
  // Without sorting, a list or a sorted set keeps its order (reversed by DESC).
  bool reverse = dontsort && desc;
  if (o && o->type() == db::kList) {
    size_t len = db::ListLen(o);
    db::ListWalk(o, reverse ? len - 1 : 0, reverse, [&](size_t, std::string_view s) {
      items.push_back({std::string(s)});
      return true;
    });
  } else if (o && o->type() == db::kSet) {
    db::SetForEach(o, [&](std::string_view s) { items.push_back({std::string(s)}); });
  } else if (o) {
    db::ZWalk(o, 0, reverse, [&](std::string_view m, double) {
      items.push_back({std::string(m)});
      return true;
    });
  }
  int64_t n = static_cast<int64_t>(items.size());
  int64_t start = std::min(std::max<int64_t>(limit_start, 0), n);
  int64_t count = std::min(std::max<int64_t>(limit_count, -1), n);
  int64_t end = count < 0 ? n - 1 : start + count - 1;
  if (start >= n) {
    start = n - 1;
    end = n - 2;
  }
  if (end >= n) end = n - 1;

  if (!dontsort) {
    bool bad = false;
    for (auto& it : items) {
      if (sortby) {
        it.cmp = ByPattern(c, *sortby, it.elem);
        if (!it.cmp) continue;  // missing: score 0 (numeric), first (ALPHA)
        if (!alpha && !Score(*it.cmp, &it.score)) bad = true;
      } else if (!alpha && !Score(it.elem, &it.score)) {
        bad = true;
      }
    }
    if (bad) return r.Error("One or more scores can't be converted into double");
    auto less = [&](const Item& x, const Item& y) {
      int cmp;
      if (!alpha) {
        cmp = x.score < y.score ? -1 : x.score > y.score ? 1 : x.elem.compare(y.elem);
      } else if (sortby) {
        if (!x.cmp || !y.cmp)
          cmp = x.cmp == y.cmp ? 0 : !x.cmp ? -1 : 1;
        else
          cmp = x.cmp->compare(*y.cmp);
      } else {
        cmp = x.elem.compare(y.elem);
      }
      return desc ? cmp > 0 : cmp < 0;
    };
    // Only what LIMIT returns needs its final place (Valkey sorts partially too); ties only
    // arise between equal elements, or between equal BY values with ALPHA, whose order
    // Valkey leaves unspecified as well.
    if (end >= start && end + 1 < n)
      std::partial_sort(items.begin(), items.begin() + end + 1, items.end(), less);
    else
      std::sort(items.begin(), items.end(), less);
  }

  // The output: the elements in [start, end], or per element what each GET names.
  size_t per = gets.empty() ? 1 : gets.size();
  size_t outlen = end >= start ? static_cast<size_t>(end - start + 1) * per : 0;
  if (!storekey) {
    r.ArrayLen(static_cast<int64_t>(outlen));
    for (int64_t i = start; i <= end; i++) {
      if (gets.empty()) {
        r.Bulk(items[i].elem);
        continue;
      }
      for (auto& g : gets) {
        auto v = ByPattern(c, g, items[i].elem);
        if (v)
          r.Bulk(*v);
        else
          r.Null();
      }
    }
    return;
  }
  db::Obj* list = nullptr;
  if (outlen) {
    list = db::NewList(*storekey);
    for (int64_t i = start; i <= end; i++) {
      if (gets.empty()) {
        db::ListPush(list, items[i].elem, false);
        continue;
      }
      for (auto& g : gets) db::ListPush(list, ByPattern(c, g, items[i].elem).value_or(""), false);
    }
  }
  StoreResult(c, *storekey, list, server::kNotifyList, "sortstore");
  if (outlen) Modified(c, *storekey, static_cast<int64_t>(outlen) - 1);
  r.Int(static_cast<int64_t>(outlen));
}

void SortCommand(Client* c) { SortGeneric(c, false); }
void SortRoCommand(Client* c) { SortGeneric(c, true); }

}  // namespace
}  // namespace cmd

namespace server {
void RegisterSortCommands(std::vector<CommandSpec>* t) {
  using namespace cmd;
  const char* g = "generic";
  t->push_back({"sort", -2, kCmdWrite | kCmdDenyOom, SortCommand, g, "1.0.0",
                "Sorts the elements in a list, a set, or a sorted set, optionally storing the "
                "result.",
                "O(N+M*log(M)) where N is the number of elements in the list or set to sort, and "
                "M the number of returned elements. When the elements are not sorted, "
                "complexity is O(N)."});
  t->push_back({"sort_ro", -2, kCmdReadonly, SortRoCommand, g, "7.0.0",
                "Returns the sorted elements of a list, a set, or a sorted set.",
                "O(N+M*log(M)) where N is the number of elements in the list or set to sort, and "
                "M the number of returned elements. When the elements are not sorted, "
                "complexity is O(N)."});
}
}  // namespace server
