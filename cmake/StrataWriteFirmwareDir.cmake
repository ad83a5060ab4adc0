# Run by `cmake --install` (cmake/StrataInstall.cmake): writes share/strata/sdk/firmware_dir.cc, which names
# this install's firmware folder for programs linked against the static libstrata.a (sim/firmware_image.cc).
# The prefix is known only now: `--prefix` may differ from the one configured.
set(dir "${CMAKE_INSTALL_PREFIX}/${STRATA_INSTALL_DATADIR}/strata")
file(WRITE "$ENV{DESTDIR}${dir}/sdk/firmware_dir.cc"
     "/* Written by cmake --install: where this install's firmware images are (sim/firmware_image.cc). */\n"
     "extern \"C\" const char strata_installed_firmware_dir[] = \"${dir}/firmware\";\n")
message(STATUS "Installing: $ENV{DESTDIR}${dir}/sdk/firmware_dir.cc")
