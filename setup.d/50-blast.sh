# Installs NCBI BLAST+ (makeblastdb, blastp) for the parallel BLAST workflow in apps/blast.
# Sourced by setup.sh (which defines apt_install); also runnable alone: bash setup.d/50-blast.sh
if ! declare -F apt_install >/dev/null; then
  apt_install() {
    local missing=()
    for pkg in "$@"; do
      dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
    done
    if ((${#missing[@]})); then
      apt-get update -qq
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    fi
  }
fi
apt_install ncbi-blast+
