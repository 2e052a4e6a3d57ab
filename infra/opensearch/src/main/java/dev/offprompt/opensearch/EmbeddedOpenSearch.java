package dev.offprompt.opensearch;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;

import org.opensearch.common.settings.Settings;
import org.opensearch.core.common.transport.TransportAddress;
import org.opensearch.env.Environment;
import org.opensearch.http.HttpServerTransport;
import org.opensearch.node.InternalSettingsPreparer;
import org.opensearch.node.Node;
import org.opensearch.plugins.Plugin;

/**
 * A single-node OpenSearch for local development and tests, built from Maven Central jars.
 *
 * <p>Usage: {@code EmbeddedOpenSearch HOME HTTP_PORT}. HOME is a throwaway directory (data, logs). The node binds
 * 127.0.0.1 only, prints {@code OPENSEARCH_STARTED http://127.0.0.1:PORT} once HTTP is up, and shuts down when
 * its standard input reaches end-of-file, so a parent process that dies never leaves an orphan JVM. With
 * {@code -Doffprompt.deleteHomeOnExit=true} it then also deletes HOME.
 *
 * <p>Constructing {@link Node} directly (instead of going through {@code Bootstrap}) skips the security manager,
 * bootstrap checks and jar-hell checks; the modules and the k-NN plugin are passed in as classpath plugins.
 */
public final class EmbeddedOpenSearch {

    /** Classpath plugins (2.x class names; 3.x renamed most of them to *ModulePlugin). */
    private static final List<String> PLUGINS = List.of(
            "org.opensearch.transport.Netty4Plugin", // HTTP (REST) and transport
            "org.opensearch.analysis.common.CommonAnalysisPlugin",
            "org.opensearch.painless.PainlessPlugin",
            "org.opensearch.index.mapper.MapperExtrasPlugin",
            "org.opensearch.index.reindex.ReindexPlugin", // _delete_by_query, _update_by_query
            "org.opensearch.knn.plugin.KNNPlugin");

    /** {@link Node}'s plugin-taking constructor is protected. */
    private static final class ClasspathPluginNode extends Node {
        ClasspathPluginNode(Environment environment, Collection<Class<? extends Plugin>> plugins) {
            super(environment, plugins, true);
        }
    }

    private EmbeddedOpenSearch() {}

    private static void deleteRecursively(Path root) throws IOException {
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        }
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 2) {
            System.err.println("usage: EmbeddedOpenSearch HOME HTTP_PORT");
            System.exit(2);
        }
        Path home = Path.of(args[0]).toAbsolutePath();
        String httpPort = args[1];
        // modules/ and plugins/ must stay absent: bundles found there would be jar-hell and version checked.
        for (String dir : List.of("config", "data", "logs")) {
            Files.createDirectories(home.resolve(dir));
        }
        Settings settings = Settings.builder()
                .put("path.home", home.toString())
                .put("path.data", home.resolve("data").toString())
                .put("path.logs", home.resolve("logs").toString())
                .put("cluster.name", "offprompt-local")
                .put("node.name", "offprompt-local")
                .put("discovery.type", "single-node")
                .put("network.host", "127.0.0.1")
                .put("http.port", httpPort)
                .put("transport.port", "0") // any free port; nothing connects to it
                // Small or nearly full disks must not flip indices to read-only.
                .put("cluster.routing.allocation.disk.threshold_enabled", false)
                .build();
        Environment environment =
                InternalSettingsPreparer.prepareEnvironment(settings, Map.of(), home.resolve("config"), () -> "offprompt-local");

        List<Class<? extends Plugin>> plugins = new ArrayList<>();
        for (String className : PLUGINS) {
            plugins.add(Class.forName(className).asSubclass(Plugin.class)); // fail loudly if a class was renamed
        }

        Node node = new ClasspathPluginNode(environment, plugins);
        AtomicBoolean closed = new AtomicBoolean(false);
        Runnable shutdown = () -> {
            if (closed.compareAndSet(false, true)) {
                try {
                    node.close();
                    node.awaitClose(20, TimeUnit.SECONDS);
                } catch (IOException | InterruptedException e) {
                    System.err.println("error while closing the node: " + e);
                }
            }
        };
        Runtime.getRuntime().addShutdownHook(new Thread(shutdown, "offprompt-shutdown")); // SIGTERM, SIGINT
        node.start();

        TransportAddress bound = node.injector().getInstance(HttpServerTransport.class).boundAddress().publishAddress();
        System.out.println("OPENSEARCH_STARTED http://127.0.0.1:" + bound.getPort());
        System.out.flush();

        // Block until the parent closes our stdin (or dies), then shut down.
        while (System.in.read() != -1) {
            // ignore anything written to stdin
        }
        System.out.println("stdin closed, stopping");
        shutdown.run();
        if (Boolean.getBoolean("offprompt.deleteHomeOnExit")) {
            deleteRecursively(home); // also when the parent was killed and cannot clean up itself
        }
        System.exit(0);
    }
}
