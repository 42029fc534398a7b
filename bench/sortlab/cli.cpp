/// \file
/// \brief Dispatch of a `sortlab` command line and the mapping of failures to exit codes.
#include "bench/sortlab/cli.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "bench/sortlab/cli_args.hpp"
#include "bench/sortlab/run_command.hpp"
#include "bench/sortlab/run_segments.hpp"
#include "bench/sortlab/run_topk.hpp"
#include "bench/sortlab/stage_registry.hpp"
#include "bench/sortlab/trace_command.hpp"
#include "common/errors.hpp"

namespace sortlab::cli {

void print_stages(std::ostream& out) {
  /// One stage of the listing and the options line it gets.
  struct Listed {
    const StageEntry* entry;
    std::string options;
  };
  std::vector<Listed> listed;
  for (const StageEntry& entry : stage_registry())
    listed.push_back(
        {&entry, options_text(entry) + (entry.has_trace() ? "" : "; no trace (run only)")});
  // Stages 6 and 7 sort many arrays or pick from rows, so they are not in the registry of
  // one-array sorts; the listing keeps ladder order all the same.
  listed.push_back({&segmented_stage(),
                    "--segments S,S,... or --segment-size L (default " +
                        std::to_string(kDefaultSegmentSize) +
                        "), --pairs, --descending, --begin-bit, --end-bit; trace: CPU model"});
  listed.push_back({&topk_stage(), "--rows R --row-length L (default " +
                                       std::to_string(kDefaultTopkRows) + " x " +
                                       std::to_string(kDefaultTopkRowLength) +
                                       "), --k K (default " + std::to_string(kDefaultTopkK) +
                                       "), --smallest, --sorted; trace: CPU model"});
  std::stable_sort(listed.begin(), listed.end(), [](const Listed& a, const Listed& b) {
    return a.entry->number < b.entry->number;
  });
  for (const Listed& stage : listed)
    out << stage_label(*stage.entry) << "  " << stage.entry->folder << '\n'
        << "    " << stage.entry->summary << '\n'
        << "    options: " << stage.options << '\n';
}

int run_cli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err,
            bool gpu_present) {
  std::string topic;
  try {
    if (!args.empty())
      topic = args[0] == "run" || args[0] == "trace" || args[0] == "stages" ? args[0] : "";
    const Command command = parse_command_line(args);
    switch (command.kind) {
      case CommandKind::kHelp:
        out << usage_text(command.help_topic);
        if (command.help_topic.empty()) {
          out << "\nstages:\n";
          print_stages(out);
        }
        return kExitOk;
      case CommandKind::kStages:
        print_stages(out);
        return kExitOk;
      case CommandKind::kRun:
        return run_command(command.run, out, err, gpu_present);
      case CommandKind::kTrace:
        return trace_command(command.trace, out, gpu_present);
    }
  } catch (const UsageError& error) {
    err << "sortlab: " << error.what() << '\n'
        << usage_hint(error.topic().empty() ? topic : error.topic()) << '\n';
    return kExitUsage;
  } catch (const Error& error) {  // CUDA errors and failed checks inside a sort
    err << "sortlab: error: " << error.what() << '\n';
    return kExitFailed;
  } catch (const std::exception& error) {  // e.g. std::bad_alloc for a huge n on a small host
    err << "sortlab: error: " << error.what() << '\n';
    return kExitFailed;
  }
  return kExitFailed;
}

}  // namespace sortlab::cli
