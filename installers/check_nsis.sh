#!/usr/bin/env bash
# Compile-check installers/pagewise.nsi on Linux (apt-get install nsis): makensis builds the
# installer around a dummy bundle, warnings as errors, once plain and once with SIGN_COMMAND
# (a stand-in that copies the uninstaller). Checks the script, not the installer's behaviour on
# Windows.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
VERSION="$(sed -n 's/^version = "\(.*\)"/\1/p' "$HERE/../pyproject.toml" | head -1)"
DUMMY="$(mktemp -d)"
trap 'rm -rf "$DUMMY"' EXIT
mkdir -p "$DUMMY/pagewise/_internal/assets"
printf 'MZ' > "$DUMMY/pagewise/pagewise.exe"
printf 'MZ' > "$DUMMY/pagewise/pagewise-cli.exe"
printf 'licences' > "$DUMMY/pagewise/THIRD_PARTY_LICENSES.txt"
cp "$HERE/../assets/sample-contract.pdf" "$DUMMY/pagewise/_internal/assets/"
makensis -VERSION && echo
makensis -V2 -WX -DVERSION="$VERSION" -DBUNDLE="$DUMMY/pagewise" -DMAX_INSTDIR=100 \
    -DOUTFILE="$DUMMY/pagewise-$VERSION-windows-x86_64-cpu-setup.exe" "$HERE/pagewise.nsi"
makensis -V2 -WX -DVERSION="$VERSION" -DBUNDLE="$DUMMY/pagewise" -DMAX_INSTDIR=100 \
    -DOUTFILE="$DUMMY/pagewise-$VERSION-signed-setup.exe" "-DSIGN_COMMAND=cp %1 $DUMMY/uninstall-seen.exe" \
    "$HERE/pagewise.nsi"
test -s "$DUMMY/uninstall-seen.exe"
ls -l "$DUMMY"/*.exe
echo "pagewise.nsi compiles (NSIS $(makensis -VERSION)); the uninstaller passes through SIGN_COMMAND"
