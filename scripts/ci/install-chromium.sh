#!/bin/sh
# Installs Debian's Chromium for the browser test (test/browser/), only when /usr/bin/chromium is missing.
# Needs root (CI runs as root) and Debian's package sources; the npm packages never download a browser.
set -eu
if [ -x /usr/bin/chromium ]; then
  echo "chromium present: $(/usr/bin/chromium --version 2>/dev/null || echo /usr/bin/chromium)"
  exit 0
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update
apt-get install -y chromium
/usr/bin/chromium --version
