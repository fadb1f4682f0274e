import ArgumentParser

/// `folla`: the Folla server and its operations tools. The process starts in `Entry`.
struct Folla: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Folla — anonymous crowd-location server.",
        subcommands: [Serve.self, Migrate.self, Check.self],
        defaultSubcommand: Serve.self
    )
}
