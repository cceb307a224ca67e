// The process title that ps and /proc/PID/cmdline show, from proc-title-template, as Valkey 8
// sets it: "{title} {listen-addr} {server-mode}" by default, a forked child titled for its
// work (valkey-rdb-bgsave, valkey-aof-rewrite, valkey-rdb-to-replicas).
#pragma once
#include <string>
#include <string_view>

namespace server {

// At start, before anything else reads argv or environ: takes the memory the kernel gave the
// arguments (and the environment after them, whose strings move to the heap) for the title.
void ProcTitleInit(int argc, char** argv);
// The template expanded: {title}, {listen-addr}, {server-mode}, {config-file}, {port},
// {tls-port}, {unixsocket}; "{{" is a brace. False for an unknown variable or an unclosed one
// (Valkey's sdstemplate rules); the result is trimmed of spaces.
bool ExpandProcTitle(std::string_view tmpl, std::string_view title, std::string* out);
// CONFIG SET's check: it expands and is not empty.
bool ValidProcTitleTemplate(const std::string& tmpl, std::string* err);
// Sets the title (title: the executable's argv[0] when null; with extended-redis-compatibility
// a child's "valkey-" name becomes "redis-"). Nothing with set-proc-title no.
void SetProcTitle(const char* title = nullptr);

}  // namespace server
