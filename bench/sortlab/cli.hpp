/// \file
/// \brief The `sortlab` tool's entry point as a library function, so tests can run whole
/// command lines and check their output and exit codes without starting a process.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace sortlab::cli {

/// Runs one `sortlab` command line: parses it, dispatches to help, `stages`, `run` or `trace`,
/// and turns every failure into a message on \p err and an exit code (kExitOk, kExitFailed,
/// kExitUsage with a usage hint, kExitNoGpu).
/// \param args the arguments without the program name
/// \param out standard output
/// \param err standard error
/// \param gpu_present whether a CUDA GPU is usable (main() passes gpu_available())
int run_cli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err,
            bool gpu_present);

/// The `sortlab stages` listing, in ladder order: every stage's number, name, summary, folder and
/// the options it accepts (tuning knobs, or stage 6's segments and stage 7's shape), and whether
/// it can be traced.
/// \param out where to print
void print_stages(std::ostream& out);

}  // namespace sortlab::cli
