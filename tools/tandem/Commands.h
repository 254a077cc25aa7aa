//===- Commands.h - `tandem` subcommands -----------------------*- C++ -*-===//
//
// Each subcommand is one function in its own file; main.cpp dispatches.
// Each returns the process exit status and prints its own errors.
//
//===----------------------------------------------------------------------===//
#pragma once

namespace tandem::cli {

int asCommand(int Argc, char **Argv);      // AsCommand.cpp
int objdumpCommand(int Argc, char **Argv); // ObjdumpCommand.cpp
int runCommand(int Argc, char **Argv);     // RunCommand.cpp
int samplesCommand(int Argc, char **Argv); // SamplesCommand.cpp

} // namespace tandem::cli
