// List values: one listpack while small, a quicklist of listpacks when large; conversions in
// both directions follow Valkey 8 (list-max-listpack-size).
#pragma once
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "db/object.h"

namespace db {

struct ListLimits {
  int fill = -2;           // list-max-listpack-size
  int compress_depth = 0;  // list-compress-depth: plain nodes at each end, the rest LZF
};
ListLimits& GetListLimits();

Obj* NewList(std::string_view key);
size_t ListLen(const Obj* o);
void ListPush(Obj* o, std::string_view s, bool head);
// Fills a new, empty list with a decoded value's elements, in order: the same list as pushing
// each at the tail, made in one pass when it stays one listpack.
void ListLoad(Obj* o, const std::vector<std::string>& elems);
// Fills a new, empty list with a snapshot's nodes, each a listpack's bytes, checked and not
// empty: one node that fits the listpack limit is taken as the list, else they become the
// quicklist's nodes as they are (as Valkey 8 loads them, several small ones included).
void ListLoadNodes(Obj* o, const std::vector<std::string>& listpacks);
bool ListPop(Obj* o, bool head, std::string* out);
bool ListIndex(Obj* o, long index, std::string* out);
bool ListSet(Obj* o, long index, std::string_view s);
void ListInsertAt(Obj* o, size_t index, std::string_view s, bool after);
void ListDeleteRange(Obj* o, size_t start, size_t n);
// Visits from index forward or backward; fn returns false to stop.
void ListWalk(Obj* o, size_t index, bool reverse,
              const std::function<bool(size_t, std::string_view)>& fn);
size_t ListRemove(Obj* o, std::string_view s, size_t limit, bool from_tail);
// Re-checks the encoding after elements were removed (quicklist -> listpack when small).
void ListMaybeShrink(Obj* o);
void RegisterListType();

}  // namespace db
