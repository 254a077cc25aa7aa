//===- Commands.h - `tandem` subcommands -----------------------*- C++ -*-===//
//
// Each subcommand is one function in its own file; main.cpp dispatches.
// Each receives its own argv, with Argv[0] set to the subcommand name, returns
// the process exit status and prints its own errors.
//
//===----------------------------------------------------------------------===//
#pragma once

namespace tandem::cli {

int asCommand(int Argc, char **Argv);      // AsCommand.cpp
int compileCommand(int Argc, char **Argv); // CompileCommand.cpp
int objdumpCommand(int Argc, char **Argv); // ObjdumpCommand.cpp
int runCommand(int Argc, char **Argv);     // RunCommand.cpp
int samplesCommand(int Argc, char **Argv); // SamplesCommand.cpp
int reportCommand(int Argc, char **Argv);  // ReportCommand.cpp
int profileCommand(int Argc, char **Argv); // ProfileCommand.cpp
int suiteExportCommand(int Argc, char **Argv); // SuiteExportCommand.cpp
int compareCommand(int Argc, char **Argv);  // CompareCommand.cpp
int sweepCommand(int Argc, char **Argv);    // SweepCommand.cpp

} // namespace tandem::cli
