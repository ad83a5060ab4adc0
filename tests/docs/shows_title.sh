#!/bin/sh
# A waveform viewer that prints the title GTKWave would show (its wave argument, as given) and the save file's
# dumpfile line, then exits without a window (test docs.screenshot.neutral_title): the screenshot script's failure
# message carries them.
# usage (as GTKWave is called): shows_title.sh --script TCL WAVE SAVEFILE
echo "title: GTKWave - $3; $(grep '^\[dumpfile\]' "$4")"
exit 1
