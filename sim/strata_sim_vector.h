// strata-sim vector (strata_sim_vector.cc).
#ifndef STRATA_SIM_STRATA_SIM_VECTOR_H_
#define STRATA_SIM_STRATA_SIM_VECTOR_H_

namespace strata::sim {

// argv[1] is "vector"; returns the exit status (strata_sim_cli.h).
int RunVector(int argc, char* argv[]);

}  // namespace strata::sim

#endif  // STRATA_SIM_STRATA_SIM_VECTOR_H_
