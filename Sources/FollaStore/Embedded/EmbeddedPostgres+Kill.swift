import Foundation

extension EmbeddedPostgres {
    /// The postmaster and every process it forked (backends, workers: all its children), or
    /// nothing when the cluster is not running.
    public func processes() -> [Int32] {
        guard let postmaster = runningPID() else { return [] }
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return [postmaster] + entries.compactMap { entry -> Int32? in
            guard let pid = Int32(entry),
                  let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")")
            else { return nil }
            // After "pid (comm) ": the state, then the parent's pid.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return fields.count > 1 && Int32(fields[1]) == postmaster ? pid : nil
        }
    }

    /// Ends the cluster at once, frozen (SIGSTOP) or not: SIGKILL to every one of its
    /// processes. A crash as far as its data goes: the next start replays the WAL, and nothing
    /// committed is lost. For a shutdown that can wait no longer (`pg_ctl stop` waits on a
    /// frozen cluster, and a process that exits without it leaves the cluster running, and
    /// the next start refusing to run beside it).
    public func killAtOnce() {
        // The postmaster stopped first, so that it forks nothing between the list and the kill.
        if let postmaster = runningPID() { kill(postmaster, SIGSTOP) }
        for pid in processes() { kill(pid, SIGKILL) }
    }
}
