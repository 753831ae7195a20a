# Installs NCBI BLAST+ (makeblastdb, blastp) for the parallel BLAST workflow in apps/blast.
# Sourced by setup.sh (which defines apt_install); also runnable alone: bash setup.d/50-blast.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.bash"
apt_install ncbi-blast+
