#pragma once
// Folders for the files a test writes, under the system's temp folder.
#include <string>

namespace adilab::test {

// A fresh empty folder named for `name` and this process (test binaries that run at the same
// time, under ctest -j or from two checkouts, stay out of each other's files), removed with
// everything in it when the test binary exits.
std::string temp_folder(const std::string& name);

}  // namespace adilab::test
