// The process title that ps and /proc/PID/cmdline show (proc-title-template, as Valkey 8 sets
// it), without the configuration: server::SetProcTitle (server.h) fills the variables.
#pragma once
#include <string>
#include <string_view>

namespace server {

// At start, before anything else reads argv or environ: takes the memory the kernel gave the
// arguments (and the environment after them, whose strings move to the heap) for the title.
void ProcTitleInit(int argc, char** argv);

struct ProcTitleVars {
  std::string title, listen_addr, server_mode, config_file, port, tls_port, unixsocket;
};
// The template expanded: {title}, {listen-addr}, {server-mode}, {config-file}, {port},
// {tls-port}, {unixsocket}; "{{" is a brace. False for an unknown variable or an unclosed one
// (Valkey's sdstemplate rules); the result is trimmed of spaces.
bool ExpandProcTitle(std::string_view tmpl, const ProcTitleVars& v, std::string* out);
// Writes the title over the memory ProcTitleInit took (cut to fit, the rest zeroed).
void WriteProcTitle(std::string_view text);

}  // namespace server
