# Installs what the HDFS backend needs (storage_adapters/hdfs/):
#   - the client: hdfs-native into $VENV (a native client: no JVM or libhdfs needed);
#   - the servers: Apache Hadoop's NameNode and DataNode from Maven Central (3.4.1, the
#     jars of setup.d/hdfs/pom.xml with their dependencies) copied once into
#     $SWIFTCLOUD_HADOOP_LIB (default /opt/swiftcloud/hadoop/lib), run with the machine's Java.
# Idempotent. Sourced by setup.sh; also runnable alone: bash setup.d/40-hdfs.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.bash"
SWIFTCLOUD_HADOOP_LIB=${SWIFTCLOUD_HADOOP_LIB:-/opt/swiftcloud/hadoop/lib}

pip_install_unless "hdfs_native" hdfs-native

command -v java >/dev/null || apt_install default-jre-headless
if ! ls "$SWIFTCLOUD_HADOOP_LIB"/hadoop-hdfs-3*.jar >/dev/null 2>&1; then
  command -v mvn >/dev/null || apt_install maven
  echo "setup: copying Hadoop's HDFS jars from Maven Central into $SWIFTCLOUD_HADOOP_LIB"
  mkdir -p "$SWIFTCLOUD_HADOOP_LIB"
  mvn -q -B -f "$ROOT/setup.d/hdfs/pom.xml" dependency:copy-dependencies \
    -DincludeScope=runtime -DoutputDirectory="$SWIFTCLOUD_HADOOP_LIB"
fi
