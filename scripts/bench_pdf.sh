#!/usr/bin/env bash
# Measures how well tend's pure-Go PDF reader recovers text, against
# poppler's pdftotext as the anchor, on real PDFs from Debian
# documentation packages (installed here, never committed), and the time
# per page of each. Prints one line per PDF and a SUMMARY line.
#   scripts/bench_pdf.sh            # about 30 PDFs
#   PDF_COUNT=60 scripts/bench_pdf.sh
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/usr/local/go/bin:$PATH"

# The anchor and the documents: LaTeX manuals (pdfTeX), the Debian
# Reference (XeLaTeX), the gnuplot manual, the libtasn1 and
# shared-mime-info manuals (other toolchains).
packages="poppler-utils texlive-latex-base-doc debian-reference-en gnuplot-doc libtasn1-doc shared-mime-info"
missing=""
for p in $packages; do
	dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
done
if [ -n "$missing" ]; then
	echo "installing:$missing"
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi

list="$(mktemp)"
trap 'rm -f "$list"' EXIT
{
	find /usr/share/doc/texlive-doc/latex/base /usr/share/doc/texlive-doc/latex/amsmath -name '*.pdf' | sort | head -n "${PDF_COUNT:-30}"
	for p in /usr/share/debian-reference/debian-reference.en.pdf /usr/share/doc/gnuplot/gnuplot.pdf \
		/usr/share/doc/libtasn1-doc/libtasn1.pdf /usr/share/doc/shared-mime-info/shared-mime-info-spec.pdf; do
		[ -f "$p" ] && echo "$p"
	done
} >"$list"
echo "comparing $(wc -l <"$list") PDFs"
TEND_BENCH_PDF_LIST="$list" go test -count=1 -timeout 30m -run '^TestPDFQualityAgainstPoppler$' -v ./content |
	grep -E 'ratio|SUMMARY|FAIL|ok'
