// The routing decision of a cluster node (as Valkey 8's getNodeByQuery): pure functions of plain
// inputs that say whether this node serves a request or which redirect/error it answers.
//
// Route() serves both roles: primary and replica call the same function. It knows nothing of
// commands, clients or sockets; the caller (dispatch) translates a command into RouteInput:
// its keys in order (for EXEC, the keys of all queued commands as one request) and a few flags.
//
// The rules in the order they are checked (the first that fires wins), and where route.cc
// checks each:
//   rule 0  module disabled redirection      -> NodeView::redirection_disabled, checked first
//   rule 1  EXEC without MULTI               -> CommandTraits::exec_without_multi
//   rule 2a first key: unbound slot, MIG/IMP -> the `i == 0` branch of the key loop
//   rule 2b later key: CROSSSLOT, MULTI_KEYS -> the `else` branch of the key loop
//   rule 2c count present/missing keys       -> end of the key loop (skipped for shard pub/sub)
//   rule 3  no keys                          -> `keys.empty()` after the loop
//   rule 4  cluster state not OK             -> DownState / DownReadOnly
//   rule 5  MIGRATE exception (primary only) -> CommandTraits::migrate
//   rule 6  migrating: TRYAGAIN or ASK       -> `mig && missing > 0`
//   rule 7  importing + ASKING               -> `imp && (asking || cmd.asking)`
//   rule 8  READONLY / shard pub/sub replica -> serve reads of my primary's slots
//   rule 9  owner == myself, else MOVED      -> last lines
// RouteBlocked() is the periodic re-check of a client blocked on keys.
//
// Cost: Route hashes each key once, looks up one slot's state, and allocates nothing; only
// FormatRedirect, called when an error is sent, builds a string.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

namespace cluster {

inline constexpr int kNumSlots = 16384;

// A node as routing sees it: a handle chosen by the caller (e.g. an index into its node table).
// Route only compares handles and returns them; the caller maps one back to an address.
using NodeHandle = uint32_t;
inline constexpr NodeHandle kNoNode = UINT32_MAX;

// What the slot table says about one slot. On a replica, migrating/importing mirror its
// primary's (replicated SETSLOT, see open_slots.cc).
struct SlotState {
  NodeHandle owner = kNoNode;           // the primary serving the slot, kNoNode if unbound
  NodeHandle migrating_to = kNoNode;    // migrating[slot], kNoNode if not migrating
  NodeHandle importing_from = kNoNode;  // importing[slot], kNoNode if not importing
};

// A non-owning reference to a callable. It binds only to lvalues, so it cannot be left pointing
// at a temporary lambda that died at the end of the statement that built the input.
template <class Sig>
class FunctionRef;
template <class R, class... A>
class FunctionRef<R(A...)> {
 public:
  template <class F>
  static constexpr bool kBindable =
      std::is_object_v<F> && !std::is_same_v<std::remove_cv_t<F>, FunctionRef> &&
      std::is_invocable_r_v<R, const F&, A...>;

  template <class F, std::enable_if_t<kBindable<F>, int> = 0>
  FunctionRef(F& f)  // NOLINT: implicit on purpose
      : obj_(static_cast<const void*>(&f)), call_([](const void* o, A... a) -> R {
          return (*static_cast<const F*>(o))(std::forward<A>(a)...);
        }) {}
  R operator()(A... a) const { return call_(obj_, std::forward<A>(a)...); }

 private:
  const void* obj_;
  R (*call_)(const void*, A...);
};

// This node and its cluster state: the same for every command in one turn of the event loop.
struct NodeView {
  bool is_primary = true;
  NodeHandle myself = kNoNode;
  // My primary P, read on a replica only (on a primary P is myself): the primary at the root
  // of its replication chain, or myself if that primary is unknown.
  NodeHandle my_primary = kNoNode;
  bool cluster_ok = true;                   // cluster_state:ok
  bool allow_reads_when_down = false;       // cluster-allow-reads-when-down
  bool allow_pubsubshard_when_down = true;  // cluster-allow-pubsubshard-when-down
  bool redirection_disabled = false;        // a module turned redirection off (rule 0)
};

// Client flags (the caller keeps them; each field says what ends it).
struct ClientFlags {
  bool readonly = false;  // READONLY sent (READWRITE/RESET clear it)
  bool asking = false;    // ASKING still in effect for this command
};

// What Route needs of the command. For EXEC inside MULTI, `write` and `pubsub` are the union
// over the queued commands; `asking` and `migrate` are EXEC's own (false), as in Valkey.
struct CommandTraits {
  bool write = false;               // kCmdWrite (EXEC: any queued command writes)
  bool pubsub = false;              // kCmdPubsub, i.e. shard pub/sub here (EXEC: any queued)
  bool asking = false;              // kCmdAsking: RESTORE-ASKING behaves as if ASKING was sent
  bool migrate = false;             // the command is MIGRATE
  bool exec_without_multi = false;  // EXEC sent outside MULTI: served, EXEC itself errors
};

struct RouteInput {
  NodeView node;
  FunctionRef<SlotState(int slot)> slot_state;
  // Does the key exist in db 0? A lookup without side effects: no expiry deletion, no stats,
  // no touch, no notification. Called only while the slot is migrating or importing here.
  FunctionRef<bool(std::string_view key)> key_exists;
  ClientFlags client;
  CommandTraits cmd;
  // The keys in order, shard channels included (for EXEC: every queued command's keys).
  std::span<const std::string_view> keys;
};

enum class RouteKind : uint8_t {
  kServe,         // run the command here
  kMoved,         // MOVED <slot> <target>
  kAsk,           // ASK <slot> <target>
  kTryAgain,      // TRYAGAIN Multiple keys request during rehashing of slot
  kCrossSlot,     // CROSSSLOT Keys in request don't hash to the same slot
  kDownUnbound,   // CLUSTERDOWN Hash slot not served
  kDownState,     // CLUSTERDOWN The cluster is down
  kDownReadOnly,  // CLUSTERDOWN The cluster is down and only accepts read commands
};

struct RouteDecision {
  RouteKind kind = RouteKind::kServe;
  int slot = -1;                // slot of the first key; -1 when no key was looked at
  NodeHandle target = kNoNode;  // MOVED: the slot owner; ASK: migrating[slot]
};
static_assert(std::is_trivially_copyable_v<RouteDecision>);

// The rules above, in order. Keyless commands: Route returns kServe for an empty key list
// (rule 3); the dispatcher may skip calling it for commands without key specs or movable keys.
RouteDecision Route(const RouteInput& in);

// The periodic re-check of a client blocked on keys (lists, sorted sets, streams,
// module key-blocks; the caller filters the kind of block). kServe: keep it blocked; any other
// kind: unblock it with that error (kDownState, kDownUnbound or kMoved).
struct BlockedInput {
  NodeView node;  // is_primary, myself, my_primary, cluster_ok are read
  FunctionRef<SlotState(int slot)> slot_state;
  bool readonly = false;        // the client has READONLY
  bool last_cmd_write = false;  // the blocking command (the client's last command) writes
  std::string_view first_key;   // one of the blocked keys: they all share one slot
};
RouteDecision RouteBlocked(const BlockedInput& in);

// The fixed error line body (no leading '-', no CRLF) of a decision that needs no node address;
// empty for kServe, kMoved and kAsk.
std::string_view RouteErrorText(RouteKind kind);

// The error line body, without the leading '-' and the CRLF: "MOVED 12182
// 127.0.0.1:30002", "ASK …", or the fixed text of the other kinds. `endpoint` and `port` are
// those of decision.target as this client should see them (ip, hostname or "?", or "" for
// unknown-endpoint; the TLS port for a TLS client); they are ignored for the other kinds.
// Empty for kServe.
std::string FormatRedirect(const RouteDecision& decision, std::string_view endpoint, int port);

}  // namespace cluster
