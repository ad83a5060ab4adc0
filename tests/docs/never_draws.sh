#!/bin/sh
# A waveform viewer that never opens a window (test docs.screenshot.no_window): the screenshot script must give up.
exec sleep 30
