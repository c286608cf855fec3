/*
 * What s3://, s3a:// and s3n:// are when they must go through Hadoop's S3AFileSystem (GLUEBALL_S3_FILESYSTEM=s3a,
 * or GLUEBALL_S3_ENDPOINT naming an S3-compatible store) but hadoop-aws is not on the class path: a file
 * system that refuses to start, saying how to get the jars, instead of Hadoop's bare ClassNotFoundException.
 */
package dev.glueball.fs;

import java.io.IOException;
import java.net.URI;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.RawLocalFileSystem;

public class S3ARequiredFileSystem extends RawLocalFileSystem {
  @Override
  public void initialize(URI name, Configuration conf) throws IOException {
    throw new IOException(name + ": s3://, s3a:// and s3n:// paths go through Hadoop's S3AFileSystem"
        + " (GLUEBALL_S3_FILESYSTEM=s3a or GLUEBALL_S3_ENDPOINT), whose jars (hadoop-aws and the AWS SDK modules,"
        + " glueball's 's3a' feature) are not on the class path: fetch them with `glueball jars fetch s3a`"
        + " (or `make jars` in a checkout), then start the run again");
  }
}
