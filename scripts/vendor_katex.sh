#!/usr/bin/env bash
# Copy KaTeX from the npm package into docs/assets/katex, licence included: katex.min.js, which
# the build runs over every formula (scripts/docpipe/katex.py), and the stylesheet and fonts the
# pages load, so the site makes no request outside itself. Run after changing KATEX_VERSION.
set -euo pipefail
KATEX_VERSION=${KATEX_VERSION:-0.19.1}
dest=$(cd "$(dirname "$0")/.." && pwd)/docs/assets/katex
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$work" && npm pack --silent "katex@$KATEX_VERSION" >/dev/null && tar xzf katex-*.tgz)
rm -rf "$dest" && mkdir -p "$dest"
cp "$work/package/LICENSE" "$dest/LICENSE"
cp "$work/package/dist/katex.min.js" "$work/package/dist/katex.min.css" "$dest/"
cp -r "$work/package/dist/fonts" "$dest/fonts"
echo "$KATEX_VERSION" > "$dest/VERSION"
echo "KaTeX $KATEX_VERSION copied to ${dest#"$PWD"/}"
