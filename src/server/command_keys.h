// Where a command's keys are: key specs (Valkey 7+'s begin_search / find_keys form) and the one
// function that finds the keys of a call. Routing, COMMAND GETKEYS/GETKEYSANDFLAGS/INFO and
// CROSSSLOT checks all read this; nothing else parses key positions.
#pragma once
#include <cstdint>
#include <string_view>
#include <vector>

namespace server {

struct CommandSpec;

// Key-spec flags, in the order COMMAND INFO prints them.
enum KeyFlag : uint32_t {
  kKeyRO = 1 << 0,
  kKeyRW = 1 << 1,
  kKeyOW = 1 << 2,
  kKeyRM = 1 << 3,
  kKeyAccess = 1 << 4,
  kKeyUpdate = 1 << 5,
  kKeyInsert = 1 << 6,
  kKeyDelete = 1 << 7,
  kKeyNotKey = 1 << 8,
  kKeyIncomplete = 1 << 9,
  kKeyVariableFlags = 1 << 10,
};

struct KeySpec {
  uint32_t flags = 0;
  // begin_search: the argument index, or the argument after `keyword` searched from
  // `startfrom` (negative: from the end, backwards).
  enum Begin : uint8_t { kIndex, kKeyword, kBeginUnknown } begin = kIndex;
  int index = 0;
  const char* keyword = nullptr;
  int startfrom = 0;
  // find_keys: a range (lastkey relative to the first key, negative from the end; keystep;
  // limit: for lastkey -1, take 1/limit of the rest), or a count at keynumidx followed by
  // the keys from firstkey on.
  enum Find : uint8_t { kRange, kKeynum, kFindUnknown } find = kRange;
  int lastkey = 0, keystep = 1, limit = 0;
  int keynumidx = 0, firstkey = 1;
};

struct KeyRef {
  int pos;         // index into argv (argv[0] is the command name)
  uint32_t flags;  // KeyFlag bits of the spec (or of the command's own key function)
};

// Commands whose specs cannot say it all (variable flags, incomplete specs) find their keys
// with a function of their own. Returns false when the arguments are invalid.
using KeysProc = bool (*)(const std::vector<std::string_view>& argv, std::vector<KeyRef>* out);

// The keys of a call, as Valkey finds them: specs first, the command's function when the
// specs are incomplete or their flags variable. argv[0] is the command name (for a
// subcommand, argv[1] is its name). Returns false when the arguments do not say where the
// keys are (a bad numkeys, a missing keyword's range): no keys then.
// with_channels: also the "keys" that are shard channels (not_key specs), for routing.
bool FindKeys(const CommandSpec* cmd, const std::vector<std::string_view>& argv,
              std::vector<KeyRef>* out, bool with_channels = false);

// Whether a command has keys at all (a spec that is a key, or a key function).
bool CommandHasKeys(const CommandSpec* cmd);

// The legacy (first, last, step) triple of COMMAND INFO and the movablekeys flag, derived
// from the specs as Valkey does: only consecutive index-plus-range specs fit the triple.
struct LegacyKeys {
  int first = 0, last = 0, step = 0;
  bool movable = false;
};
LegacyKeys DeriveLegacyKeys(const std::vector<KeySpec>& specs);

// Fills a command's key specs and key function from the table of Valkey 8's specs, and
// derives its legacy triple and movablekeys flag from them.
void AttachKeySpecs(CommandSpec* cmd);

// Names of key flags, in COMMAND INFO order.
void KeyFlagNames(uint32_t flags, std::vector<const char*>* out);

}  // namespace server
