# Installs the headless browser the report's timeline test opens timeline.html in
# (tests/observe/test_timeline_browser.py): Debian's chromium (and chromium-driver, for
# driving it with WebDriver). Users only need a browser of their own to view the page.
# Idempotent. Sourced by setup.sh; also runnable alone: bash setup.d/55-browser.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.bash"

apt_install chromium chromium-driver
