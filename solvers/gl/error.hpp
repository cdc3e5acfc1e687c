#pragma once
// The one error type adilab throws for problems a user can act on: no GL 4.3 context, a shader
// that does not compile, a size the GPU cannot hold, a file that cannot be written. main()
// prints its message and exits non-zero; nothing catches it to carry on half-done.
#include <stdexcept>
#include <string>

namespace adilab {

class Error : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

}  // namespace adilab
