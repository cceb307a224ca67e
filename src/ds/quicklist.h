// Quicklist: a list stored as a sequence of listpack nodes, each bounded by the
// list-max-listpack-size rule (a byte budget when negative, an entry count when positive).
// Nodes never hold zero entries. Indexing walks node counts, so operations near either end are
// cheap and the rest is O(nodes + entries of one node). With a compress depth d > 0
// (list-compress-depth), every node but the d at each end is kept LZF-compressed; a node is
// opened while an operation uses it and closed again afterwards.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace ds {

struct QuicklistNode {
  uint8_t* lp;  // a listpack, or its LZF form when csize > 0
  uint32_t count;
  uint32_t csize = 0;    // compressed bytes (0: lp is a plain listpack)
  uint32_t rawsize = 0;  // listpack bytes while compressed
};

class Quicklist {
 public:
  explicit Quicklist(int fill, int compress_depth = 0) : fill_(fill), depth_(compress_depth) {}
  ~Quicklist();
  Quicklist(const Quicklist&) = delete;
  Quicklist& operator=(const Quicklist&) = delete;

  // Takes ownership of a whole listpack as one node (may split it if over the limit).
  void AppendListpack(uint8_t* lp);
  // Releases the single node's listpack to the caller (requires exactly one node).
  uint8_t* TakeSingleListpack();
  // Moves all nodes to another quicklist (no entry is copied).
  void MoveNodesTo(Quicklist* other);
  // A deep copy (compressed nodes stay compressed).
  Quicklist* Clone() const;
  size_t CompressedNodes() const;

  size_t Count() const { return count_; }
  size_t NodeCount() const { return nodes_.size(); }
  // The nodes as they are (DEBUG QUICKLIST prints them).
  const std::vector<QuicklistNode>& Nodes() const { return nodes_; }
  int fill() const { return fill_; }
  int compress_depth() const { return depth_; }
  size_t Bytes() const;
  // Bytes of the first node's listpack (0 when empty).
  size_t FirstNodeBytes() const;
  void set_fill(int fill) { fill_ = fill; }

  void PushHead(std::string_view s);
  void PushTail(std::string_view s);
  bool PopHead(std::string* out);
  bool PopTail(std::string* out);
  // Index may be negative (from the tail). False when out of range.
  bool Get(long index, std::string* out) const;
  bool Set(long index, std::string_view s);
  // Inserts s before (after=false) or after the element at index (0 <= index < Count()).
  void InsertAt(size_t index, std::string_view s, bool after);
  // Deletes `n` elements starting at index (0 <= index).
  void DeleteRange(size_t index, size_t n);
  // Visits elements from `index` forward (or backward when reverse); fn returns false to stop.
  void Walk(size_t index, bool reverse,
            const std::function<bool(size_t idx, std::string_view)>& fn) const;
  // Removes up to `limit` (0 = all) elements equal to s, from the head or from the tail.
  size_t Remove(std::string_view s, size_t limit, bool from_tail);

  // Whether a listpack of these dimensions exceeds this fill rule.
  static bool ExceedsLimit(int fill, size_t bytes, size_t count);
  // Byte and count limits of a fill rule (one of them unlimited).
  static void Limits(int fill, size_t* bytes, size_t* count);

 private:
  // Node holding index; *offset gets the position inside it.
  size_t Locate(size_t index, size_t* offset) const;
  bool NodeAllows(size_t ni, size_t add_bytes) const;
  void DropNodeIfEmpty(size_t ni);
  // The node's plain listpack (decompressing it in place when needed).
  uint8_t* Open(size_t ni) const;
  // Compresses the node if it is an inner one (beyond depth_ from both ends), opens it if not.
  void Settle(size_t ni) const;
  // Settles the nodes whose inner/end role may change after nodes came or went at the ends,
  // plus `touched`.
  void Rebalance(std::initializer_list<size_t> touched = {}) const;
  void RebalanceAll() const;

  // Compression state changes inside logically const reads.
  mutable std::vector<QuicklistNode> nodes_;
  size_t count_ = 0;
  int fill_;
  int depth_ = 0;
};

}  // namespace ds
