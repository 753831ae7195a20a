# Installs what the HDFS backend needs (storage_adapters/hdfs/):
#   - the client: hdfs-native into $VENV (a native client: no JVM or libhdfs needed);
#   - the servers: Apache Hadoop's NameNode and DataNode from Maven Central (3.4.1, the
#     jars of setup.d/hdfs/pom.xml with their dependencies) copied once into
#     $SWIFTCLOUD_HADOOP_LIB (default /opt/swiftcloud/hadoop/lib), run with the machine's Java.
# Idempotent. Sourced by setup.sh; also runnable alone: bash setup.d/40-hdfs.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.bash"
SWIFTCLOUD_HADOOP_LIB=${SWIFTCLOUD_HADOOP_LIB:-/opt/swiftcloud/hadoop/lib}

pip_install_unless "hdfs_native" hdfs-native

# hdfs-native's close asks the NameNode to complete the file and, when the file's last block
# is not reported yet (a race the DataNodes often lose by milliseconds), waits 500 ms before
# asking again, doubling over 5 tries: half a second on many a small file (docs/storage.md).
# Rebuilt here from its source (PyPI's sdist; crates from crates.io) with waits from 10 ms
# over 11 tries (20 s in all; 15.5 before). Its message for giving up then names the tries,
# which tells this build from PyPI's. Without cargo, PyPI's build stays.
hdfs_native_mark="Failed to complete file in time (11 tries)"
hdfs_native_lib=$("$VENV/bin/python" -c 'import glob, hdfs_native, os
print(glob.glob(os.path.join(os.path.dirname(hdfs_native.__file__), "_internal*.so"))[0])')
if ! grep -qF "$hdfs_native_mark" "$hdfs_native_lib"; then
  if ! command -v cargo >/dev/null; then
    echo "setup: WARNING: no cargo (Rust), so hdfs-native keeps its 500 ms wait at close" >&2
  else
    echo "setup: building hdfs-native from its source, with a shorter wait at close (about 5 minutes)"
    build=$(mktemp -d)
    "$VENV/bin/python" -m pip download -q --no-deps --no-binary hdfs-native -c "$ROOT/constraints.txt" \
      -d "$build" hdfs-native
    tar -xzf "$build"/hdfs_native-*.tar.gz -C "$build"
    source_file=$(echo "$build"/hdfs_native-*/rust/src/file.rs)
    sed -i -e 's/^const COMPLETE_RETRY_DELAY_MS: u64 = 500;$/const COMPLETE_RETRY_DELAY_MS: u64 = 10;/' \
      -e 's/^const COMPLETE_RETRIES: u32 = 5;$/const COMPLETE_RETRIES: u32 = 11;/' \
      -e 's/"Failed to complete file in time"/"Failed to complete file in time (11 tries)"/' "$source_file"
    if [[ $(grep -cE '^const COMPLETE_RETRY_DELAY_MS: u64 = 10;$|^const COMPLETE_RETRIES: u32 = 11;$|\(11 tries\)' \
          "$source_file") != 3 ]]; then
      echo "setup: hdfs-native's source has changed: the patch of $source_file does not apply" >&2
      exit 1
    fi
    "$VENV/bin/python" -m pip wheel -q --no-deps -w "$build/wheel" "${source_file%/rust/src/file.rs}"
    "$VENV/bin/python" -m pip install -q --no-deps --force-reinstall "$build"/wheel/hdfs_native-*.whl
    rm -rf "$build"
  fi
fi

command -v java >/dev/null || apt_install default-jre-headless
if ! ls "$SWIFTCLOUD_HADOOP_LIB"/hadoop-hdfs-3*.jar >/dev/null 2>&1; then
  command -v mvn >/dev/null || apt_install maven
  echo "setup: copying Hadoop's HDFS jars from Maven Central into $SWIFTCLOUD_HADOOP_LIB"
  mkdir -p "$SWIFTCLOUD_HADOOP_LIB"
  mvn -q -B -f "$ROOT/setup.d/hdfs/pom.xml" dependency:copy-dependencies \
    -DincludeScope=runtime -DoutputDirectory="$SWIFTCLOUD_HADOOP_LIB"
fi
