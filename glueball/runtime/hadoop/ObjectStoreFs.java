/*
 * The FileContext side of glueball's object store (fs.AbstractFileSystem.<scheme>.impl): Spark's
 * streaming checkpoints and other FileContext users reach ObjectStoreFileSystem through it, with
 * FileContext's rename-with-overwrite.
 */
package dev.glueball.fs;

import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.DelegateToFileSystem;

public class ObjectStoreFs extends DelegateToFileSystem {
  public ObjectStoreFs(URI uri, Configuration conf) throws IOException, URISyntaxException {
    super(uri, new ObjectStoreFileSystem(), conf, uri.getScheme(), false);
  }
}
