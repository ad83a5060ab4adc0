// Device runtime image: serves the host driver's command rings until the device is reset.
#include "runtime/runtime.h"

int main() { strata::runtime::Run(); }
