/*
 * The output stream of an object being written to glueball's object store (see ObjectStoreFileSystem).
 */
package dev.glueball.fs;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;

import org.apache.hadoop.fs.StreamCapabilities;
import org.apache.hadoop.fs.Syncable;
import org.apache.hadoop.fs.impl.StoreImplementationUtils;

/** Bytes to a file channel; the buffering stream in front of it keeps hflush/hsync working. */
final class ChannelOutput extends OutputStream implements Syncable, StreamCapabilities {
  private final FileChannel channel;

  ChannelOutput(FileChannel channel) {
    this.channel = channel;
  }

  @Override
  public void write(int b) throws IOException {
    write(new byte[] {(byte) b}, 0, 1);
  }

  @Override
  public void write(byte[] bytes, int offset, int length) throws IOException {
    ByteBuffer buffer = ByteBuffer.wrap(bytes, offset, length);
    while (buffer.hasRemaining()) {
      channel.write(buffer);
    }
  }

  @Override
  public void hflush() {
    // nothing is held here: written bytes are already the operating system's
  }

  @Override
  public void hsync() throws IOException {
    channel.force(false);
  }

  @Override
  public boolean hasCapability(String capability) {
    return StoreImplementationUtils.isProbeForSyncable(capability);
  }

  @Override
  public void close() throws IOException {
    channel.close();
  }
}
