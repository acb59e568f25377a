#!/usr/bin/env bash
# Rebuilds the vendored DejaVu Sans subsets from Debian's fonts-dejavu-core.
# Covers Latin (Basic, Latin-1, Extended-A and -B), basic Cyrillic (Serbian names),
# Greek (Σ on the Szaman sheet), punctuation, the math signs the cards use (− ≤ ≥ ⌈ ⌉)
# and the suits ♠♥♦♣: every letter of the six languages the app speaks
# (tests/test_print_languages.py checks it).
# Usage (from the repository root): bash printables/fonts/make-subset.sh
set -euo pipefail
src=${DEJAVU_DIR:-/usr/share/fonts/truetype/dejavu}
out=$(dirname "$0")
pyftsubset=${PYFTSUBSET:-.venv/bin/pyftsubset}
unicodes="U+0020-007E,U+00A0-024F,U+02C6-02DD,U+0300-0308,U+030C,U+0391-03A9,U+03B1-03C9,U+0400-045F,\
U+2010-2027,U+2030-203A,U+2044,U+20AC,U+2116,U+2190-2193,U+2212,U+2248,U+2260,\
U+2264,U+2265,U+2308-230B,U+25A1,U+25CB,U+25CF,U+2610-2612,U+2660-2667,U+2713,\
U+2717,U+FFFD"
# the condensed faces print a rule card whose translation would not fit otherwise
for face in DejaVuSans DejaVuSans-Bold DejaVuSansCondensed DejaVuSansCondensed-Bold; do
  "$pyftsubset" "$src/$face.ttf" --unicodes="$unicodes" --layout-features='*' \
    --notdef-outline --output-file="$out/$face-subset.ttf"
done
