// strata-sim gemm (strata_sim_gemm.cc).
#ifndef STRATA_SIM_STRATA_SIM_GEMM_H_
#define STRATA_SIM_STRATA_SIM_GEMM_H_

namespace strata::sim {

// argv[1] is "gemm"; returns the exit status (strata_sim_cli.h).
int RunGemm(int argc, char* argv[]);

}  // namespace strata::sim

#endif  // STRATA_SIM_STRATA_SIM_GEMM_H_
