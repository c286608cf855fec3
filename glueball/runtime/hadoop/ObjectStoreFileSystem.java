/*
 * glueball's Hadoop FileSystem for s3://, s3a:// and s3n:// over its local object store.
 *
 * s3://bucket/key is the file <root>/bucket/key, where <root> is the Hadoop setting
 * fs.glueball.objectstore.root (glueball sets it on every Spark session it makes) or else
 * $GLUEBALL_HOME/s3 (GLUEBALL_HOME defaults to ~/.glueball). One instance serves one bucket in
 * one scheme, as Hadoop caches file systems by scheme and authority: every path it hands back
 * (statuses, listings, globs, the working directory, qualified paths) is in that scheme and
 * bucket, never a local path.
 *
 * Reads go through Hadoop's own local input streams (RawLocalFileSystem.open: seek, positioned
 * and vectored reads), so Spark reads the store at the speed of file://. Writes go to plain file
 * channels: no checksum side files in the store and no chmod per file. rename is one rename(2),
 * atomic for files and directories. append is not supported.
 *
 * Locations that would leave the store are refused with the rules of glueball/objects/locations.py:
 * a bucket is one path segment (not '.' or '..', no backslash or NUL), a key has no '.' or '..'
 * segment and no backslash or NUL.
 *
 * Built on the machine by glueball.runtime.hadoop against the Hadoop jars pyspark ships.
 */
package dev.glueball.fs;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.FileSystemException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Paths;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.CreateFlag;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileAlreadyExistsException;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.ParentNotDirectoryException;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.PathIsNotEmptyDirectoryException;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.fs.statistics.BufferedIOStatisticsOutputStream;
import org.apache.hadoop.util.Progressable;

public class ObjectStoreFileSystem extends FileSystem {
  /** Hadoop setting: the folder behind s3:// (default $GLUEBALL_HOME/s3). */
  public static final String ROOT_KEY = "fs.glueball.objectstore.root";
  /** Hadoop setting: the block size statuses report (default fs.local.block.size, 32 MB), for input splits. */
  public static final String BLOCK_SIZE_KEY = "fs.glueball.objectstore.block.size";

  private static final long DEFAULT_BLOCK_SIZE = 32L * 1024 * 1024;
  private static final int MIN_WRITE_BUFFER = 64 * 1024;

  private URI uri;
  private String scheme;
  private String bucket;
  private java.nio.file.Path bucketDir;
  private Path workingDir;
  private long blockSize;
  private RawLocalFileSystem local;

  @Override
  public void initialize(URI name, Configuration conf) throws IOException {
    super.initialize(name, conf);
    setConf(conf);
    scheme = name.getScheme() == null ? "s3" : name.getScheme().toLowerCase(Locale.ROOT);
    bucket = name.getAuthority();
    if (bucket == null || bucket.isEmpty()) {
      throw new IllegalArgumentException(name + " names no bucket: object store paths are "
          + scheme + "://bucket/key");
    }
    if (bucket.equals(".") || bucket.equals("..") || bucket.indexOf('\\') >= 0 || bucket.indexOf('\0') >= 0) {
      throw new IllegalArgumentException(name + ": '" + bucket + "' is not a bucket name");
    }
    java.nio.file.Path root = objectStoreRoot(conf);
    bucketDir = root.resolve(bucket).normalize();
    if (!root.equals(bucketDir.getParent())) {
      throw new IllegalArgumentException(name + ": '" + bucket + "' is not a bucket name");
    }
    try {
      uri = new URI(scheme, bucket, null, null, null);
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException(name + ": '" + bucket + "' is not a bucket name", e);
    }
    workingDir = pathOf("");
    blockSize = conf.getLongBytes(BLOCK_SIZE_KEY, conf.getLongBytes("fs.local.block.size", DEFAULT_BLOCK_SIZE));
    local = new RawLocalFileSystem();
    local.initialize(URI.create("file:///"), conf);
  }

  /** The folder behind s3://: the setting fs.glueball.objectstore.root, else $GLUEBALL_HOME/s3. */
  static java.nio.file.Path objectStoreRoot(Configuration conf) {
    String configured = conf.getTrimmed(ROOT_KEY, "");
    if (configured.startsWith("file://")) {
      configured = URI.create(configured).getPath();
    }
    if (!configured.isEmpty()) {
      return Paths.get(expandUser(configured)).toAbsolutePath().normalize();
    }
    String home = System.getenv("GLUEBALL_HOME");
    return Paths.get(expandUser(home == null ? "~/.glueball" : home), "s3").toAbsolutePath().normalize();
  }

  private static String expandUser(String path) {
    if (path.equals("~") || path.startsWith("~/")) {
      return System.getProperty("user.home") + path.substring(1);
    }
    return path;
  }

  @Override
  public String getScheme() {
    return scheme == null ? "s3" : scheme;
  }

  @Override
  public URI getUri() {
    return uri;
  }

  @Override
  public String getCanonicalServiceName() {
    return null; // no delegation tokens
  }

  @Override
  public Path getWorkingDirectory() {
    return workingDir;
  }

  @Override
  public void setWorkingDirectory(Path dir) {
    workingDir = pathOf(keyOf(dir));
  }

  @Override
  public long getDefaultBlockSize(Path path) {
    return blockSize;
  }

  @Override
  public short getDefaultReplication(Path path) {
    return 1;
  }

  // ---- paths: in the caller's scheme and bucket outside, files of the store inside ----

  /** The key of path in this bucket ("" for the bucket itself), refusing keys that would leave the store. */
  String keyOf(Path path) {
    checkPath(path);
    URI u = path.toUri();
    String text = u.getPath() == null ? "" : u.getPath();
    if (u.getScheme() == null && !text.startsWith("/")) {
      text = new Path(workingDir, path).toUri().getPath();
    }
    StringBuilder key = new StringBuilder(text.length());
    for (String segment : text.split("/")) {
      if (segment.isEmpty()) {
        continue;
      }
      if (segment.equals(".") || segment.equals("..")) {
        throw new IllegalArgumentException(path + ": a key with '.' or '..' segments would leave the object store");
      }
      if (segment.indexOf('\\') >= 0 || segment.indexOf('\0') >= 0) {
        throw new IllegalArgumentException(path
            + ": the key has a character glueball cannot store (NUL or backslash)");
      }
      if (key.length() > 0) {
        key.append('/');
      }
      key.append(segment);
    }
    return key.toString();
  }

  private java.nio.file.Path fileOf(String key) {
    return key.isEmpty() ? bucketDir : bucketDir.resolve(key);
  }

  private Path pathOf(String key) {
    return new Path(scheme, bucket, "/" + key);
  }

  private static String parentOf(String key) {
    int slash = key.lastIndexOf('/');
    return slash < 0 ? "" : key.substring(0, slash);
  }

  private static String nameOf(String key) {
    return key.substring(key.lastIndexOf('/') + 1);
  }

  private FileNotFoundException notFound(String key) {
    return new FileNotFoundException("File " + pathOf(key) + " does not exist");
  }

  /** The attributes of the file behind key (following links); FileNotFoundException when there is none. */
  private BasicFileAttributes attributes(String key, java.nio.file.Path file) throws IOException {
    try {
      return Files.readAttributes(file, BasicFileAttributes.class);
    } catch (NoSuchFileException e) {
      throw notFound(key);
    } catch (FileSystemException e) {
      if (!Files.exists(file)) { // a parent is a file ("Not a directory")
        throw notFound(key);
      }
      throw e;
    }
  }

  private FileStatus status(String key, java.nio.file.Path file, BasicFileAttributes attributes) {
    boolean directory = attributes.isDirectory();
    return new ObjectStatus(directory ? 0 : attributes.size(), directory, blockSize,
        attributes.lastModifiedTime().toMillis(), attributes.lastAccessTime().toMillis(), pathOf(key),
        file.toString());
  }

  // ---- metadata ----

  @Override
  public FileStatus getFileStatus(Path path) throws IOException {
    String key = keyOf(path);
    java.nio.file.Path file = fileOf(key);
    try {
      return status(key, file, attributes(key, file));
    } catch (FileNotFoundException e) {
      if (key.isEmpty()) { // a bucket's root always exists, as on S3; its folder comes with the first object
        return new ObjectStatus(0, true, blockSize, 0, 0, pathOf(key), file.toString());
      }
      throw e;
    }
  }

  @Override
  public boolean exists(Path path) throws IOException {
    String key = keyOf(path);
    return key.isEmpty() || Files.exists(fileOf(key));
  }

  @Override
  public FileStatus[] listStatus(Path path) throws IOException {
    String key = keyOf(path);
    java.nio.file.Path dir = fileOf(key);
    BasicFileAttributes attributes;
    try {
      attributes = attributes(key, dir);
    } catch (FileNotFoundException e) {
      if (key.isEmpty()) {
        return new FileStatus[0];
      }
      throw e;
    }
    if (!attributes.isDirectory()) {
      return new FileStatus[] {status(key, dir, attributes)};
    }
    String[] names = dir.toFile().list();
    if (names == null) {
      throw new IOException("Cannot list " + pathOf(key));
    }
    Arrays.sort(names); // key order, as S3 lists
    String prefix = key.isEmpty() ? "" : key + "/";
    List<FileStatus> statuses = new ArrayList<>(names.length);
    for (String name : names) {
      java.nio.file.Path child = dir.resolve(name);
      try {
        statuses.add(status(prefix + name, child, Files.readAttributes(child, BasicFileAttributes.class)));
      } catch (NoSuchFileException e) {
        // removed while listing (or a dangling link): not there
      }
    }
    return statuses.toArray(new FileStatus[0]);
  }

  @Override
  public void setTimes(Path path, long mtime, long atime) throws IOException {
    String key = keyOf(path);
    java.nio.file.Path file = fileOf(key);
    attributes(key, file);
    if (mtime >= 0) {
      Files.setLastModifiedTime(file, FileTime.fromMillis(mtime));
    }
  }

  // ---- directories ----

  @Override
  public boolean mkdirs(Path path, FsPermission permission) throws IOException {
    makeDirectories(keyOf(path));
    return true;
  }

  private void makeDirectories(String key) throws IOException {
    java.nio.file.Path dir = fileOf(key);
    if (Files.isDirectory(dir)) {
      return;
    }
    try {
      Files.createDirectories(dir);
    } catch (FileSystemException e) { // the folder or one of its parents is a file
      if (Files.isDirectory(dir)) {
        return; // made by someone else meanwhile
      }
      if (Files.exists(dir)) {
        throw new FileAlreadyExistsException(pathOf(key) + " exists and is not a directory");
      }
      for (String parent = parentOf(key); !parent.isEmpty(); parent = parentOf(parent)) {
        if (Files.exists(fileOf(parent)) && !Files.isDirectory(fileOf(parent))) {
          throw new ParentNotDirectoryException(pathOf(parent) + " is a file, not a directory (making "
              + pathOf(key) + ")");
        }
      }
      throw e;
    }
  }

  @Override
  public boolean delete(Path path, boolean recursive) throws IOException {
    String key = keyOf(path);
    java.nio.file.Path file = fileOf(key);
    BasicFileAttributes attributes;
    try {
      attributes = Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
    } catch (NoSuchFileException e) {
      return false;
    } catch (FileSystemException e) {
      if (!Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
        return false;
      }
      throw e;
    }
    if (!attributes.isDirectory()) {
      return Files.deleteIfExists(file);
    }
    if (!recursive) {
      try (DirectoryStream<java.nio.file.Path> entries = Files.newDirectoryStream(file)) {
        if (entries.iterator().hasNext()) {
          throw new PathIsNotEmptyDirectoryException(pathOf(key).toString());
        }
      }
    }
    deleteTree(file, !key.isEmpty()); // a bucket loses its objects, not its folder
    return true;
  }

  /** Delete dir's contents (never following links out of it), and dir itself when withDir. */
  private static void deleteTree(java.nio.file.Path dir, boolean withDir) throws IOException {
    Files.walkFileTree(dir, new SimpleFileVisitor<java.nio.file.Path>() {
      @Override
      public FileVisitResult visitFile(java.nio.file.Path file, BasicFileAttributes attrs) throws IOException {
        Files.deleteIfExists(file);
        return FileVisitResult.CONTINUE;
      }

      @Override
      public FileVisitResult visitFileFailed(java.nio.file.Path file, IOException e) throws IOException {
        if (e instanceof NoSuchFileException) {
          return FileVisitResult.CONTINUE;
        }
        throw e;
      }

      @Override
      public FileVisitResult postVisitDirectory(java.nio.file.Path current, IOException e) throws IOException {
        if (e != null && !(e instanceof NoSuchFileException)) {
          throw e;
        }
        if (withDir || !current.equals(dir)) {
          Files.deleteIfExists(current);
        }
        return FileVisitResult.CONTINUE;
      }
    });
  }

  /**
   * Rename src to dst as HDFS does: onto a path that does not exist yet, whose parent is a directory; into
   * dst when dst is a directory. False (and nothing changed) when src is missing, the target exists, or a
   * directory would move into itself. One rename(2): atomic for files and directories alike.
   */
  @Override
  public boolean rename(Path src, Path dst) throws IOException {
    String from = keyOf(src);
    String to = keyOf(dst);
    if (from.isEmpty()) {
      return false; // a bucket does not move
    }
    java.nio.file.Path source = fileOf(from);
    if (!Files.exists(source, LinkOption.NOFOLLOW_LINKS)) {
      return false;
    }
    java.nio.file.Path target = fileOf(to);
    if (to.isEmpty() || Files.isDirectory(target)) {
      to = to.isEmpty() ? nameOf(from) : to + "/" + nameOf(from);
      target = fileOf(to);
    }
    if (to.equals(from)) {
      return !Files.isDirectory(source); // a file renamed onto itself: done
    }
    if (to.startsWith(from + "/") || Files.exists(target, LinkOption.NOFOLLOW_LINKS)
        || !Files.isDirectory(target.getParent())) {
      return false;
    }
    try {
      Files.move(source, target, StandardCopyOption.ATOMIC_MOVE);
    } catch (NoSuchFileException e) {
      return false;
    }
    return true;
  }

  // ---- data ----

  @Override
  public FSDataInputStream open(Path path, int bufferSize) throws IOException {
    String key = keyOf(path);
    java.nio.file.Path file = fileOf(key);
    if (attributes(key, file).isDirectory()) {
      throw new FileNotFoundException(pathOf(key) + " is a directory, not a file");
    }
    return local.open(new Path(file.toUri()), bufferSize);
  }

  @Override
  public FSDataOutputStream create(Path path, FsPermission permission, boolean overwrite, int bufferSize,
      short replication, long blockSize, Progressable progress) throws IOException {
    return create(path, overwrite, true, bufferSize);
  }

  @Override
  public FSDataOutputStream createNonRecursive(Path path, FsPermission permission, EnumSet<CreateFlag> flags,
      int bufferSize, short replication, long blockSize, Progressable progress) throws IOException {
    if (flags.contains(CreateFlag.APPEND)) {
      throw appendUnsupported(path);
    }
    return create(path, flags.contains(CreateFlag.OVERWRITE), false, bufferSize);
  }

  private FSDataOutputStream create(Path path, boolean overwrite, boolean createParent, int bufferSize)
      throws IOException {
    String key = keyOf(path);
    if (key.isEmpty()) {
      throw new FileAlreadyExistsException(pathOf(key) + " is a bucket, not a file");
    }
    java.nio.file.Path file = fileOf(key);
    if (Files.isDirectory(file)) {
      throw new FileAlreadyExistsException(pathOf(key) + " is a directory");
    }
    String parent = parentOf(key);
    if (createParent || parent.isEmpty()) {
      makeDirectories(parent);
    } else if (!Files.isDirectory(fileOf(parent))) {
      throw new FileNotFoundException("Parent directory " + pathOf(parent) + " does not exist");
    }
    FileChannel channel;
    try {
      channel = overwrite
          ? FileChannel.open(file, StandardOpenOption.WRITE, StandardOpenOption.CREATE,
              StandardOpenOption.TRUNCATE_EXISTING)
          : FileChannel.open(file, StandardOpenOption.WRITE, StandardOpenOption.CREATE_NEW);
    } catch (java.nio.file.FileAlreadyExistsException e) {
      throw new FileAlreadyExistsException("File already exists: " + pathOf(key));
    }
    OutputStream out = new BufferedIOStatisticsOutputStream(new ChannelOutput(channel),
        Math.max(bufferSize, MIN_WRITE_BUFFER), true);
    return new FSDataOutputStream(out, statistics);
  }

  @Override
  public FSDataOutputStream append(Path path, int bufferSize, Progressable progress) {
    throw appendUnsupported(path);
  }

  private static UnsupportedOperationException appendUnsupported(Path path) {
    return new UnsupportedOperationException("append is not supported by glueball's object store (" + path
        + "): objects are written whole, as on S3");
  }

  @Override
  public void close() throws IOException {
    try {
      super.close();
    } finally {
      if (local != null) {
        local.close();
      }
    }
  }

  @Override
  public String toString() {
    return "ObjectStoreFileSystem{" + uri + " -> " + bucketDir + "}";
  }
}
