/*
 * A FileStatus of glueball's object store (see ObjectStoreFileSystem).
 */
package dev.glueball.fs;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;

import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.permission.FsPermission;

/** A status whose permission, owner and group are read from the file only when asked (one stat). */
final class ObjectStatus extends FileStatus {
  private static final long serialVersionUID = 1L;
  private final String localFile;
  private transient volatile boolean loaded;

  ObjectStatus(long length, boolean directory, long blockSize, long modified, long accessed, Path path,
      String localFile) {
    super(length, directory, 1, blockSize, modified, accessed, null, null, null, path);
    this.localFile = localFile;
  }

  @Override
  public FsPermission getPermission() {
    load();
    return super.getPermission();
  }

  @Override
  public String getOwner() {
    load();
    return super.getOwner();
  }

  @Override
  public String getGroup() {
    load();
    return super.getGroup();
  }

  private void load() {
    if (loaded) {
      return;
    }
    synchronized (this) {
      if (loaded) {
        return;
      }
      try {
        PosixFileAttributes posix = Files.readAttributes(Paths.get(localFile), PosixFileAttributes.class);
        int mode = 0;
        for (PosixFilePermission permission : posix.permissions()) {
          mode |= 1 << (8 - permission.ordinal()); // OWNER_READ (0400) ... OTHERS_EXECUTE (0001)
        }
        setPermission(new FsPermission((short) mode));
        setOwner(posix.owner().getName());
        setGroup(posix.group().getName());
      } catch (IOException | UnsupportedOperationException e) {
        // gone since, or no POSIX attributes: the defaults stay
      }
      loaded = true;
    }
  }
}
