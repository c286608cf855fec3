/*
 * What s3://, s3a:// and s3n:// are when GLUEBALL_S3_ENDPOINT names a real S3-compatible store but
 * Hadoop's S3AFileSystem (hadoop-aws) is not on the class path: a file system that refuses to start,
 * saying which jars are missing, instead of Hadoop's bare ClassNotFoundException.
 */
package dev.glueball.fs;

import java.io.IOException;
import java.net.URI;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.apache.hadoop.util.VersionInfo;

public class S3ARequiredFileSystem extends RawLocalFileSystem {
  @Override
  public void initialize(URI name, Configuration conf) throws IOException {
    throw new IOException(name + ": GLUEBALL_S3_ENDPOINT is set, so s3://, s3a:// and s3n:// paths go to that"
        + " S3-compatible store through Hadoop's S3AFileSystem (org.apache.hadoop.fs.s3a.S3AFileSystem), which is"
        + " not on the class path: put hadoop-aws-" + VersionInfo.getVersion() + ".jar and the AWS SDK bundle"
        + " jar it was built with (bundle-2.x.jar) in a folder and list them in GLUEBALL_EXTRA_JARS"
        + " (comma-separated)");
  }
}
