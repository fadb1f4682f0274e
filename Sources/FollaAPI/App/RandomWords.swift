import Glibc
import Synchronization

/// Words from the kernel's generator, read from `/dev/urandom` 512 at a time (Glibc's module
/// does not offer `getrandom(2)`, and swift-crypto draws its random keys 64 bits per call too).
struct RandomWords: ~Copyable {
    /// The process's buffer.
    static let shared = Mutex(RandomWords())

    private var words = [UInt64](repeating: 0, count: 512)
    private var used = 512

    mutating func next() -> (UInt64, UInt64) {
        if used + 2 > words.count {
            if !Self.read(into: &words) {
                // No descriptor to spare (or no /dev/urandom): the system's generator, word by word.
                var rng = SystemRandomNumberGenerator()
                for i in words.indices { words[i] = rng.next() }
            }
            used = 0
        }
        defer { used += 2 }
        return (words[used], words[used + 1])
    }

    /// Fills `words` from `/dev/urandom`; false if it cannot be opened or read.
    private static func read(into words: inout [UInt64]) -> Bool {
        let fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return words.withUnsafeMutableBytes { buffer in
            var filled = 0
            while filled < buffer.count {
                let n = Glibc.read(fd, buffer.baseAddress! + filled, buffer.count - filled)
                if n > 0 {
                    filled += n
                } else if n == 0 || errno != EINTR {
                    return false
                }
            }
            return true
        }
    }
}
