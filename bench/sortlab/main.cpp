/// \file
/// \brief `sortlab`: run, trace and list the stages from the command line (see `sortlab --help`).
#include <iostream>
#include <string>
#include <vector>

#include "bench/sortlab/cli.hpp"
#include "common/gpu_detect.hpp"

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  return sortlab::cli::run_cli(args, std::cout, std::cerr, sortlab::gpu_available());
}
