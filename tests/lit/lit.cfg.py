# lit configuration for Tandem's golden-file tests (tests/lit).
#
# Run it on the build tree, where CMake wrote lit.site.cfg.py with the paths:
#   python3 /usr/lib/llvm-19/build/utils/lit/lit.py -sv <build>/tests/lit
# `--param tandem_tools_dir=DIR` runs the tests against another tandem binary.
# RUN lines use bash (pipefail on) and call tandem, FileCheck and not by name.
import os

import lit.formats

config.name = "Tandem"
config.test_format = lit.formats.ShTest(execute_external=True)
config.suffixes = [".s", ".test", ".td", ".cu", ".ll"]
config.excludes = ["Inputs", "CMakeLists.txt", "README.md"]

if not hasattr(config, "tandem_obj_root"):
    lit_config.fatal(
        "run lit on the build tree (<build>/tests/lit), where CMake writes "
        "lit.site.cfg.py, not on the source folder")

config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.tandem_obj_root, "tests", "lit")

tools_dir = lit_config.params.get("tandem_tools_dir", config.tandem_tools_dir)
tandem = os.path.join(tools_dir, "tandem")
if not os.access(tandem, os.X_OK):
    lit_config.fatal("%s is not built; run `ninja -C %s tandem` first"
                     % (tandem, config.tandem_obj_root))

# tandem-tblgen's own tests (tblgen/) run the generator on small .td files.
config.environment["PATH"] = os.pathsep.join(
    [config.lit_tools_dir, tools_dir, config.tandem_tblgen_dir,
     os.environ.get("PATH", "")])
config.substitutions.append(
    ("%tandem_td_common", os.path.join(config.tandem_src_root, "target", "common")))
# Diagnostics must not depend on the terminal or the locale.
config.environment["LC_ALL"] = "C"
