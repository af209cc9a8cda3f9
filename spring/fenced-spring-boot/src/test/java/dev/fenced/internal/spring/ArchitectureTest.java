package dev.fenced.internal.spring;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.core.importer.Location;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/** The Boot module's package structure (docs/architecture.md): internal packages without cycles. */
@AnalyzeClasses(
        packages = {"dev.fenced.spring", "dev.fenced.internal.spring"},
        importOptions = ArchitectureTest.ThisModuleOnly.class)
class ArchitectureTest {

    /** This module's main classes only: the adapters' jars share the {@code dev.fenced.spring} prefix. */
    static final class ThisModuleOnly implements ImportOption {
        @Override
        public boolean includes(Location location) {
            return location.contains("/fenced-spring-boot/target/classes/");
        }
    }

    @ArchTest
    static final ArchRule internalPackagesHaveNoCycles =
            slices().matching("dev.fenced.internal.spring.(**)").should().beFreeOfCycles();

    /** Boot 3 and Boot 4 variants never meet: each is loaded only when its Boot is on the class path. */
    @ArchTest
    static final ArchRule bootVariantsAreIndependent =
            slices().matching("dev.fenced.internal.spring.(*).(boot*)").should().notDependOnEachOther();

    @ArchTest
    static final ArchRule publicTypesLiveInTheApiOrInternalPackages = classes()
            .that()
            .arePublic()
            .should()
            .resideInAnyPackage(
                    "dev.fenced.spring",
                    "dev.fenced.spring.dao",
                    "dev.fenced.spring.config",
                    "dev.fenced.internal.spring..");
}
