#!/bin/sh
# Print the names of Documentation/admin-guide/kernel-parameters.txt (plain or
# gzip, e.g. from Debian's linux-doc-VERSION package) as the C string list of
# src/kernel/params_vocab.def: names only, one a line, sorted. An entry starts
# a line with one tab (a few with eight spaces) and ends at '=', a blank or
# '['. Forms the file uses for families of names: "<module>.X" (any module's
# X) becomes "*.X", "MOD.*" stays (any parameter of MOD), "NAME[2|3]" gives
# NAME, NAME2 and NAME3; "ALSA" (a pointer to the ALSA docs) and
# "(loop.max_loop)" (a description's line) are not parameters.
# Usage: scripts/kparams-vocab.sh kernel-parameters.txt[.gz] >names
set -eu
f=${1:?usage: kparams-vocab.sh kernel-parameters.txt[.gz]}
case $f in *.gz) cat=zcat ;; *) cat=cat ;; esac
$cat "$f" | grep -P '^(\t| {8})[^\t ]' |
    sed -E 's/^[\t ]+//' |
    sed -E 's/^([A-Za-z0-9_.<>*-]+)\[([0-9])\|([0-9])\].*/\1 \1\2 \1\3/; t; s/[= \t\[].*$//' |
    tr ' ' '\n' | sed -E 's/^<module>\./*./' |
    grep -vx 'ALSA' | grep -v '^(' | grep . | LC_ALL=C sort -u | sed 's/.*/"&",/'
